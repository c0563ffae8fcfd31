package org.traindeck.engine.data;

import java.util.List;
import org.traindeck.engine.config.Task;

/** Datasets of one input held in float arrays: classes by id (rows or images), or one regression value per row. */
final class ArrayDatasets {

    private ArrayDatasets() {}

    static Dataset classification(
            float[] features,
            int featureCount,
            int[] classes,
            int numClasses,
            SampleShape.Image imageShape,
            List<String> classNames) {
        float[] ids = new float[classes.length];
        for (int i = 0; i < classes.length; i++) {
            if (classes[i] < 0 || classes[i] >= numClasses) {
                throw new IllegalArgumentException("class " + classes[i] + " outside 0.." + (numClasses - 1));
            }
            ids[i] = classes[i];
        }
        SampleShape shape = imageShape != null ? imageShape : new SampleShape.Flat(featureCount);
        return Dataset.of(
                new FloatSamples(features, featureCount),
                shape,
                Task.CLASSIFICATION,
                new FloatSamples(ids, 1),
                numClasses,
                classNames,
                null);
    }

    static Dataset regression(float[] features, int featureCount, float[] targets) {
        return Dataset.of(
                new FloatSamples(features, featureCount),
                new SampleShape.Flat(featureCount),
                Task.REGRESSION,
                new FloatSamples(targets, 1),
                1,
                null,
                null);
    }
}
