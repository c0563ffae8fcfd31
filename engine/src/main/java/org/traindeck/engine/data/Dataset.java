package org.traindeck.engine.data;

import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.config.Task;

import java.util.List;

/**
 * Samples held in memory as primitive arrays. Features are {@code size × featureCount} floats, row by row; an
 * image is stored channels-first (C, H, W), as DL4J's convolutions expect. Classification has a class index per
 * sample, regression a target value per sample.
 */
public final class Dataset {

    private final float[] features;
    private final int size;
    private final int featureCount;
    private final int[] classes;
    private final float[] targets;
    private final int numClasses;
    private final ImageShape imageShape;
    private final List<String> classNames;

    /** (channels, height, width) of an image sample. */
    public record ImageShape(int channels, int height, int width) {
        public int pixels() {
            return channels * height * width;
        }

        @Override
        public String toString() {
            return height + "×" + width + "×" + channels;
        }
    }

    private Dataset(float[] features, int size, int featureCount, int[] classes, float[] targets, int numClasses,
                    ImageShape imageShape, List<String> classNames) {
        if ((long) size * featureCount != features.length) {
            throw new IllegalArgumentException("features hold " + features.length + " values, expected " + size + " × " + featureCount);
        }
        if (imageShape != null && imageShape.pixels() != featureCount) {
            throw new IllegalArgumentException("image shape " + imageShape + " does not match " + featureCount + " features");
        }
        this.features = features;
        this.size = size;
        this.featureCount = featureCount;
        this.classes = classes;
        this.targets = targets;
        this.numClasses = numClasses;
        this.imageShape = imageShape;
        this.classNames = classNames == null ? null : List.copyOf(classNames);
    }

    public static Dataset classification(float[] features, int featureCount, int[] classes, int numClasses,
                                         ImageShape imageShape, List<String> classNames) {
        for (int c : classes) {
            if (c < 0 || c >= numClasses) {
                throw new IllegalArgumentException("class " + c + " outside 0.." + (numClasses - 1));
            }
        }
        return new Dataset(features, classes.length, featureCount, classes, null, numClasses, imageShape, classNames);
    }

    public static Dataset regression(float[] features, int featureCount, float[] targets) {
        return new Dataset(features, targets.length, featureCount, null, targets, 0, null, null);
    }

    public Task task() {
        return classes != null ? Task.CLASSIFICATION : Task.REGRESSION;
    }

    public int size() {
        return size;
    }

    public int featureCount() {
        return featureCount;
    }

    /** Number of classes (classification), or 1 output (regression). */
    public int outputCount() {
        return classes != null ? numClasses : 1;
    }

    public int numClasses() {
        return numClasses;
    }

    public ImageShape imageShape() {
        return imageShape;
    }

    public boolean isImage() {
        return imageShape != null;
    }

    /** One sample as a network takes it: its own shape (an image channels-first). */
    public InputType inputType() {
        return isImage() ? InputType.convolutional(imageShape.height(), imageShape.width(), imageShape.channels())
                : InputType.feedForward(featureCount);
    }

    /** One sample as a flat row of features, for models that take rows. */
    public InputType flatInputType() {
        return InputType.feedForward(featureCount);
    }

    public List<String> classNames() {
        return classNames;
    }

    public int classOf(int sample) {
        return classes[sample];
    }

    public float targetOf(int sample) {
        return targets[sample];
    }

    /** Copies sample {@code sample}'s features into {@code out} at {@code offset}. */
    public void copyFeatures(int sample, float[] out, int offset) {
        System.arraycopy(features, sample * featureCount, out, offset, featureCount);
    }

    float[] rawFeatures() {
        return features;
    }

    /** The samples at {@code indices}, in that order. */
    public Dataset subset(int[] indices) {
        float[] f = new float[indices.length * featureCount];
        for (int i = 0; i < indices.length; i++) {
            System.arraycopy(features, indices[i] * featureCount, f, i * featureCount, featureCount);
        }
        if (classes != null) {
            int[] c = new int[indices.length];
            for (int i = 0; i < indices.length; i++) {
                c[i] = classes[indices[i]];
            }
            return new Dataset(f, indices.length, featureCount, c, null, numClasses, imageShape, classNames);
        }
        float[] t = new float[indices.length];
        for (int i = 0; i < indices.length; i++) {
            t[i] = targets[indices[i]];
        }
        return new Dataset(f, indices.length, featureCount, null, t, 0, imageShape, null);
    }

    /** The same samples with features replaced (normalisation), shape and labels unchanged. */
    Dataset withFeatures(float[] newFeatures) {
        return new Dataset(newFeatures, size, featureCount, classes, targets, numClasses, imageShape, classNames);
    }

    /** The same samples seen as images of {@code shape}. */
    Dataset asImages(ImageShape shape) {
        return new Dataset(features, size, featureCount, classes, targets, numClasses, shape, classNames);
    }

    /** Whether two datasets can feed the same network: same inputs, same outputs. */
    public String incompatibilityWith(Dataset other) {
        if (featureCount != other.featureCount) {
            return other.featureCount + " features per sample instead of " + featureCount;
        }
        if (task() != other.task()) {
            return other.task().json + " labels instead of " + task().json;
        }
        if (outputCount() != other.outputCount()) {
            return other.outputCount() + " classes instead of " + outputCount();
        }
        if (isImage() != other.isImage() || (isImage() && !imageShape.equals(other.imageShape))) {
            return "images of " + other.imageShape + " instead of " + (isImage() ? imageShape : "flat features");
        }
        return null;
    }

    @Override
    public String toString() {
        return size + " samples, " + (isImage() ? "images " + imageShape : featureCount + " features") + ", "
                + (classes != null ? numClasses + " classes" : "regression");
    }
}
