package org.traindeck.engine.data;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.config.Task;

/**
 * Samples as a network trains on them: each sample's input (of one {@link SampleShape}) and its target, read one
 * sample at a time from memory or from a mapped file. What the target is depends on the task: a class id
 * (classification), values (regression), a class id per pixel or voxel (segmentation), the input itself
 * (reconstruction, no target array), or the id of the next token at every step (sequence).
 */
public final class Dataset {

    private final SampleArray inputs;
    private final SampleArray targets;
    private final SampleShape shape;
    private final Task task;
    private final int outputs;
    private final List<String> classNames;
    private final Vocabulary vocabulary;

    private Dataset(
            SampleArray inputs,
            SampleShape shape,
            Task task,
            SampleArray targets,
            int outputs,
            List<String> classNames,
            Vocabulary vocabulary) {
        if (inputs.length() != shape.values()) {
            throw new IllegalArgumentException(
                    "samples of " + inputs.length() + " values do not have the shape " + shape);
        }
        if (targets != null && targets.size() != inputs.size()) {
            throw new IllegalArgumentException(inputs.size() + " inputs but " + targets.size() + " targets");
        }
        if ((targets == null) != (task == Task.RECONSTRUCTION)) {
            throw new IllegalArgumentException("reconstruction and only reconstruction has no target array");
        }
        this.inputs = inputs;
        this.targets = targets;
        this.shape = shape;
        this.task = task;
        this.outputs = outputs;
        this.classNames = classNames == null ? null : List.copyOf(classNames);
        this.vocabulary = vocabulary;
    }

    /** Any task: the target array holds what the task says (null for reconstruction). */
    public static Dataset of(
            SampleArray inputs,
            SampleShape shape,
            Task task,
            SampleArray targets,
            int outputs,
            List<String> classNames,
            Vocabulary vocabulary) {
        return new Dataset(inputs, shape, task, targets, outputs, classNames, vocabulary);
    }

    public static Dataset classification(
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
        return new Dataset(
                new FloatSamples(features, featureCount),
                shape,
                Task.CLASSIFICATION,
                new FloatSamples(ids, 1),
                numClasses,
                classNames,
                null);
    }

    public static Dataset regression(float[] features, int featureCount, float[] targets) {
        return new Dataset(
                new FloatSamples(features, featureCount),
                new SampleShape.Flat(featureCount),
                Task.REGRESSION,
                new FloatSamples(targets, 1),
                1,
                null,
                null);
    }

    public Task task() {
        return task;
    }

    public int size() {
        return inputs.size();
    }

    public SampleShape shape() {
        return shape;
    }

    /** Values per sample's input. */
    public int featureCount() {
        return shape.values();
    }

    /** The head's outputs: classes (classification, segmentation), targets (regression), channels (reconstruction), vocabulary (sequence). */
    public int outputCount() {
        return outputs;
    }

    /** Number of classes for classification and segmentation; 0 otherwise. */
    public int numClasses() {
        return task == Task.CLASSIFICATION || task == Task.SEGMENTATION ? outputs : 0;
    }

    public SampleShape.Image imageShape() {
        return shape instanceof SampleShape.Image i ? i : null;
    }

    public boolean isImage() {
        return shape instanceof SampleShape.Image;
    }

    public List<String> classNames() {
        return classNames;
    }

    /** The token vocabulary of a sequence dataset read from text; null otherwise. */
    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /** Values per sample's target (0 for reconstruction, whose target is the input). */
    public int targetLength() {
        return targets == null ? 0 : targets.length();
    }

    public int classOf(int sample) {
        float[] one = new float[targets.length()];
        targets.read(sample, one, 0);
        return (int) one[0];
    }

    public float targetOf(int sample) {
        float[] one = new float[targets.length()];
        targets.read(sample, one, 0);
        return one[0];
    }

    /** Copies sample {@code sample}'s input into {@code out} at {@code offset}. */
    public void copyFeatures(int sample, float[] out, int offset) {
        inputs.read(sample, out, offset);
    }

    /** Copies sample {@code sample}'s target (class id, values, mask or next tokens) into {@code out} at {@code offset}. */
    public void copyTargets(int sample, float[] out, int offset) {
        targets.read(sample, out, offset);
    }

    /** The inputs as one array, for fitting a normalisation; only for data held in memory. */
    float[] rawFeatures() {
        if (inputs instanceof FloatSamples f) {
            return f.values();
        }
        throw new IllegalStateException("the samples are not held in memory");
    }

    /** The samples at {@code indices}, in that order. */
    public Dataset subset(int[] indices) {
        return new Dataset(
                inputs.select(indices),
                shape,
                task,
                targets == null ? null : targets.select(indices),
                outputs,
                classNames,
                vocabulary);
    }

    /** The same samples with features replaced (normalisation), shape and labels unchanged. */
    Dataset withFeatures(float[] newFeatures) {
        return new Dataset(
                new FloatSamples(newFeatures, shape.values()), shape, task, targets, outputs, classNames, vocabulary);
    }

    /** The same samples seen as images of {@code image}. */
    Dataset asImages(SampleShape.Image image) {
        return new Dataset(inputs, image, task, targets, outputs, classNames, vocabulary);
    }

    /** One sample as a network takes it: its own shape (an image channels-first). */
    public InputType inputType() {
        return shape.inputType(outputs);
    }

    /** One sample as a flat row of features, for models that take rows. */
    public InputType flatInputType() {
        return InputType.feedForward(shape.values());
    }

    /** Whether two datasets can feed the same network: same inputs, same outputs. */
    public String incompatibilityWith(Dataset other) {
        if (!shape.equals(other.shape)) {
            return (other.shape instanceof SampleShape.Flat
                            ? "flat features (" + other.shape + ")"
                            : other.describeShape())
                    + " instead of "
                    + (shape instanceof SampleShape.Flat ? "flat features (" + shape + ")" : describeShape());
        }
        if (task != other.task) {
            return other.task.json + " labels instead of " + task.json;
        }
        if (outputs != other.outputs) {
            return other.outputs
                    + (task == Task.SEQUENCE
                            ? " tokens in its vocabulary"
                            : task == Task.REGRESSION ? " targets" : " classes")
                    + " instead of " + outputs;
        }
        if (targetLength() != other.targetLength()) {
            return "targets of " + other.targetLength() + " values instead of " + targetLength();
        }
        return null;
    }

    private String describeShape() {
        if (shape instanceof SampleShape.Image i) {
            return "images of " + i;
        }
        if (shape instanceof SampleShape.Volume v) {
            return "volumes of " + v;
        }
        return shape.toString();
    }

    @Override
    public String toString() {
        String what = switch (task) {
            case CLASSIFICATION -> outputs + " classes";
            case SEGMENTATION -> "masks of " + outputs + " classes";
            case RECONSTRUCTION -> "reconstruction";
            case SEQUENCE -> "next tokens of " + outputs;
            case REGRESSION -> outputs == 1 ? "regression" : "regression of " + outputs + " targets";
        };
        return size() + " samples, " + (shape instanceof SampleShape.Flat ? shape : describeShape()) + ", " + what;
    }
}
