package org.traindeck.engine.train.batch;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.data.Dataset;

/**
 * A batch's targets as the task's head takes them: one-hot classes [n, C], values [n, k], one-hot classes per pixel
 * or voxel [n, C, …], the input itself, or one-hot next tokens per step [n, V, T].
 */
final class TargetEncoder {

    private TargetEncoder() {}

    /**
     * @param targets     the samples' targets, {@code data.targetLength()} values each (unused for reconstruction)
     * @param inputs      the samples' inputs as the network gets them (before any input noise), for reconstruction
     * @param inputShape  the input batch's shape
     */
    static INDArray encode(Dataset data, float[] targets, float[] inputs, int n, long[] inputShape) {
        int c = data.outputCount();
        return switch (data.task()) {
            case CLASSIFICATION -> Nd4j.create(oneHot(targets, n, c, 1), new long[] {n, c}, DataType.FLOAT);
            case REGRESSION ->
                data.perStepValues()
                        ? Nd4j.create(targets, new long[] {n, c, data.targetLength() / c}, DataType.FLOAT)
                        : Nd4j.create(targets, new long[] {n, data.targetLength()}, DataType.FLOAT);
            case SEGMENTATION -> {
                long[] shape = inputShape.clone();
                shape[1] = c;
                yield Nd4j.create(oneHot(targets, n, c, data.targetLength()), shape, DataType.FLOAT);
            }
            case RECONSTRUCTION -> Nd4j.create(inputs.clone(), inputShape, DataType.FLOAT);
            case DIFFUSION -> Nd4j.create(targets, inputShape, DataType.FLOAT);
            case SEQUENCE ->
                Nd4j.create(
                        oneHot(targets, n, c, data.targetLength()),
                        new long[] {n, c, data.targetLength()},
                        DataType.FLOAT);
        };
    }

    /** [n, classes, positions] one-hot, channels first, from one class id per position. */
    private static float[] oneHot(float[] ids, int n, int classes, int positions) {
        float[] out = new float[n * classes * positions];
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < positions; p++) {
                int id = (int) ids[i * positions + p];
                if (id < 0 || id >= classes) {
                    // the readers check every id at load: this is a reader's bug, not the user's data
                    throw new IllegalStateException("class id " + id + " outside 0.." + (classes - 1) + " in a batch");
                }
                out[(i * classes + id) * positions + p] = 1f;
            }
        }
        return out;
    }
}
