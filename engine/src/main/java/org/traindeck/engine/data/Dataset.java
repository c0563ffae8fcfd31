package org.traindeck.engine.data;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.NumpyInputs;
import org.traindeck.engine.config.Task;

/**
 * Samples as a network trains on them: each sample's input (of one {@link SampleShape}) and its target, read one
 * sample at a time from memory or from a mapped file. What the target is depends on the task: a class id
 * (classification), values (regression), a class id per pixel or voxel (segmentation), the input itself
 * (reconstruction, no target array), or the id of the next token at every step (sequence).
 */
public final class Dataset {

    private final List<InputArray> inputs;
    private final SampleArray targets;
    private final SampleArray targetMask;
    private final Task task;
    private final int outputs;
    private final List<String> classNames;
    private final Vocabulary vocabulary;
    private final DiffusionConfig diffusion;

    private Dataset(
            List<InputArray> inputs,
            Task task,
            SampleArray targets,
            SampleArray targetMask,
            int outputs,
            List<String> classNames,
            Vocabulary vocabulary,
            DiffusionConfig diffusion) {
        int n = inputs.get(0).samples().size();
        for (InputArray in : inputs) {
            if (in.samples().size() != n) {
                throw new IllegalArgumentException(
                        "input " + in.name() + " has " + in.samples().size() + " samples, not " + n);
            }
        }
        if (targets != null && targets.size() != n) {
            throw new IllegalArgumentException(n + " inputs but " + targets.size() + " targets");
        }
        if ((diffusion == null) == (task == Task.DIFFUSION)) {
            throw new IllegalArgumentException("diffusion and only diffusion has diffusion options");
        }
        if ((targets == null) != (task == Task.RECONSTRUCTION)) {
            throw new IllegalArgumentException("reconstruction and only reconstruction has no target array");
        }
        if (targetMask != null
                && (targets == null || targetMask.size() != n || targetMask.length() != targets.length())) {
            throw new IllegalArgumentException("a target mask has one value per target");
        }
        this.inputs = List.copyOf(inputs);
        this.targets = targets;
        this.targetMask = targetMask;
        this.task = task;
        this.outputs = outputs;
        this.classNames = classNames == null ? null : List.copyOf(classNames);
        this.vocabulary = vocabulary;
        this.diffusion = diffusion;
    }

    /** Any task, one input (read as "input"): the target array holds what the task says (null for reconstruction). */
    public static Dataset of(
            SampleArray inputs,
            SampleShape shape,
            Task task,
            SampleArray targets,
            int outputs,
            List<String> classNames,
            Vocabulary vocabulary) {
        InputArray only =
                new InputArray(SINGLE_INPUT, inputs, shape, shape instanceof SampleShape.Tokens ? outputs : 0);
        return new Dataset(List.of(only), task, targets, null, outputs, classNames, vocabulary, null);
    }

    /**
     * Several named inputs, aligned sample by sample; {@code targetMask} (or null) says which of each sample's targets
     * count (1) and which are padding (0).
     */
    public static Dataset named(
            List<InputArray> inputs, Task task, SampleArray targets, SampleArray targetMask, int outputs) {
        return new Dataset(inputs, task, targets, targetMask, outputs, null, null, null);
    }

    /**
     * Samples to denoise: {@code inputs} are the noised sample ({@code noisy}, holding the clean sample until a batch
     * noises it), the timestep and any conditioning; {@code samples} the clean samples, the targets.
     */
    public static Dataset diffusion(
            List<InputArray> inputs, SampleArray samples, int channels, DiffusionConfig diffusion) {
        return new Dataset(inputs, Task.DIFFUSION, samples, null, channels, null, null, diffusion);
    }

    /** The name a graph reads a single input by. */
    public static final String SINGLE_INPUT = NumpyInputs.SINGLE;

    public Task task() {
        return task;
    }

    /** The diffusion task's options; null for every other task. */
    public DiffusionConfig diffusion() {
        return diffusion;
    }

    public int size() {
        return inputs.get(0).samples().size();
    }

    /** The first input's shape (the only one's, for sources of one input). */
    public SampleShape shape() {
        return inputs.get(0).shape();
    }

    /** Every input, in the order the network takes them. */
    public List<InputArray> inputs() {
        return inputs;
    }

    /** Whether the inputs are named (several arrays graph nodes read by name), not the single "input". */
    public boolean namedInputs() {
        return inputs.size() > 1 || !SINGLE_INPUT.equals(inputs.get(0).name());
    }

    /**
     * Whether the targets are values at every step of the inputs' sequences ([T, k] per sample, stored [k, T]), not
     * values per sample: regression of named inputs whose targets were [N, T, k].
     */
    public boolean perStepValues() {
        return task == Task.REGRESSION && namedInputs() && targets.length() > outputs;
    }

    /** Whether some targets are padding ({@link #copyTargetMask}). */
    public boolean hasTargetMask() {
        return targetMask != null;
    }

    /** Copies sample {@code sample}'s target mask (1 counts, 0 padding) into {@code out} at {@code offset}. */
    public void copyTargetMask(int sample, float[] out, int offset) {
        targetMask.read(sample, out, offset);
    }

    /** Copies sample {@code sample} of input {@code k} into {@code out} at {@code offset}. */
    public void copyInput(int k, int sample, float[] out, int offset) {
        inputs.get(k).samples().read(sample, out, offset);
    }

    /** Values per sample's (first) input. */
    public int featureCount() {
        return shape().values();
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
        return shape() instanceof SampleShape.Image i ? i : null;
    }

    public boolean isImage() {
        return shape() instanceof SampleShape.Image;
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
        copyInput(0, sample, out, offset);
    }

    /** Copies sample {@code sample}'s target (class id, values, mask or next tokens) into {@code out} at {@code offset}. */
    public void copyTargets(int sample, float[] out, int offset) {
        targets.read(sample, out, offset);
    }

    /** The inputs as one array, for fitting a normalisation; only for data held in memory. */
    float[] rawFeatures() {
        if (!namedInputs() && inputs.get(0).samples() instanceof FloatSamples f) {
            return f.values();
        }
        throw new IllegalStateException("the samples are not held in memory");
    }

    /** The samples at {@code indices}, in that order (every input, target and mask alike). */
    public Dataset subset(int[] indices) {
        return with(
                inputs.stream().map(in -> in.select(indices)).toList(),
                targets == null ? null : targets.select(indices),
                targetMask == null ? null : targetMask.select(indices));
    }

    /**
     * The samples at {@code picked} copied into memory (every input, target and mask), so they outlive the files they
     * were read from.
     */
    public Dataset copied(int[] picked) {
        return copy(picked, false);
    }

    /** One sample of zeros with this data's inputs, task, outputs, class names and vocabulary: its shape, no data. */
    public Dataset standIn() {
        return copy(new int[] {0}, true);
    }

    private Dataset copy(int[] picked, boolean zeros) {
        List<InputArray> copies = new ArrayList<>();
        for (InputArray in : inputs) {
            copies.add(in.withSamples(FloatSamples.copyOf(in.samples(), picked, zeros), in.shape()));
        }
        return with(
                copies,
                targets == null ? null : FloatSamples.copyOf(targets, picked, zeros),
                targetMask == null ? null : FloatSamples.copyOf(targetMask, picked, zeros));
    }

    /** Other samples of the same task, outputs, class names, vocabulary and diffusion options. */
    private Dataset with(List<InputArray> newInputs, SampleArray newTargets, SampleArray newTargetMask) {
        return new Dataset(newInputs, task, newTargets, newTargetMask, outputs, classNames, vocabulary, diffusion);
    }

    /** The same samples with features replaced (normalisation), shape and labels unchanged; one input only. */
    Dataset withFeatures(float[] newFeatures) {
        return withFirst(new FloatSamples(newFeatures, shape().values()), shape());
    }

    /** The same samples seen as images of {@code image}. */
    Dataset asImages(SampleShape.Image image) {
        return withFirst(inputs.get(0).samples(), image);
    }

    private Dataset withFirst(SampleArray samples, SampleShape shape) {
        List<InputArray> replaced = new ArrayList<>(inputs);
        replaced.set(0, inputs.get(0).withSamples(samples, shape));
        return with(replaced, targets, targetMask);
    }

    /** One sample as a network takes it: its own shape (an image channels-first). */
    public InputType inputType() {
        return shape().inputType(outputs);
    }

    /** One sample as a flat row of features, for models that take rows. */
    public InputType flatInputType() {
        return InputType.feedForward(shape().values());
    }

    /** Whether two datasets can feed the same network: same inputs, same outputs. */
    public String incompatibilityWith(Dataset other) {
        return DatasetWords.mismatch(this, other);
    }

    @Override
    public String toString() {
        return DatasetWords.describe(this);
    }
}
