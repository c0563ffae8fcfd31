package org.traindeck.engine.use;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.data.Vocabulary;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.kernels.KernelChoices;

/**
 * A trained model opened for use (evaluation, prediction, export): the network rebuilt from a checkpoint's own config
 * exactly as training builds it, with the checkpoint's parameters (or its weight average) loaded. Opens a run folder
 * (its best checkpoint, else its newest valid one) or a checkpoint file, without the training data: the data's shape
 * and a text's vocabulary are read from the checkpoint. {@link #output} is thread-safe.
 */
public final class TrainedModel {

    private final Path checkpointFile;
    private final Path runDir;
    private final Checkpoint checkpoint;
    private final RunConfig config;
    private final StoredShape stored;
    private final ComputationGraph net;
    private final boolean ema;
    private final boolean hasEma;
    private final List<String> classNames;

    private TrainedModel(
            Path checkpointFile,
            Path runDir,
            Checkpoint checkpoint,
            RunConfig config,
            StoredShape stored,
            ComputationGraph net,
            boolean ema,
            boolean hasEma,
            List<String> classNames) {
        this.checkpointFile = checkpointFile;
        this.runDir = runDir;
        this.checkpoint = checkpoint;
        this.config = config;
        this.stored = stored;
        this.net = net;
        this.ema = ema;
        this.hasEma = hasEma;
        this.classNames = classNames;
    }

    /**
     * @param runOrCheckpoint a run folder, its {@code checkpoints/} folder, or a {@code .tdckpt} file
     * @param ema             load the stage's weight average (ema.bin) instead of its last weights
     * @throws CheckpointException naming the file and what is wrong: no checkpoint, not a checkpoint, damaged, another
     *                             version's, or no weight average when {@code ema} asks for one
     */
    public static TrainedModel open(Path runOrCheckpoint, boolean ema) throws CheckpointException {
        Path file = CheckpointChoice.locate(runOrCheckpoint);
        CheckpointFiles.Contents contents = CheckpointFiles.read(file);
        Checkpoint c = contents.checkpoint();
        if (ema && contents.ema() == null) {
            throw new CheckpointException(
                    "--ema: " + file + " holds no weight average (its stage \"" + c.stageName()
                            + "\" kept none): train with \"ema\" in the stage (docs/ema.md), or leave --ema out to use the weights");
        }
        Path runDir = CheckpointChoice.runDirOf(file);
        RunConfig config = configOf(
                file,
                contents.configJson(),
                runDir != null ? runDir : file.toAbsolutePath().getParent());
        StoredShape stored = StoredShape.parse(file, c.modelFingerprint());
        ModelConfig trained = modelOf(config, c);
        String model = ConfigWriter.modelJson(KernelChoices.withoutChoices(trained));
        if (!model.equals(StoredShape.modelPart(c.modelFingerprint()))) {
            throw new CheckpointException(
                    file + ": its config's model (" + model + ") is not the one its parameters belong to ("
                            + StoredShape.modelPart(c.modelFingerprint()) + "): the file was edited or is damaged");
        }
        ComputationGraph net =
                CheckpointNetwork.build(file, config, trained, stored, ema ? contents.ema() : contents.params());
        return new TrainedModel(
                file, runDir, c, config, stored, net, ema, contents.ema() != null, classNamesOf(config));
    }

    /**
     * The network of a cascade's stages {@code stages} (their names, in order) in run folder {@code runDir}: the best
     * checkpoint of the last of them that kept one, else the newest written in them.
     *
     * @throws CheckpointException naming the folder and the stages when none of them left a checkpoint
     */
    public static TrainedModel openStages(Path runDir, List<String> stages, String what, boolean ema)
            throws CheckpointException {
        return open(CheckpointChoice.forStages(runDir, stages, what), ema);
    }

    private static RunConfig configOf(Path file, String json, Path baseDir) throws CheckpointException {
        ValidationResult parsed = ConfigParser.parseStored(json, baseDir);
        if (!parsed.isValid()) {
            throw new CheckpointException(file + ": its config is not valid here: "
                    + parsed.errors().stream().map(Object::toString).collect(Collectors.joining("; ")));
        }
        return parsed.config();
    }

    /** An image folder's class names are its sub-folders (as the reader names them); other sources number their classes. */
    private static List<String> classNamesOf(RunConfig config) {
        String folder = config.data().train().classFolder();
        if (folder == null) {
            return null;
        }
        try (Stream<Path> s = Files.list(config.resolve(folder))) {
            return s.filter(Files::isDirectory)
                    .map(p -> p.getFileName().toString())
                    .filter(n -> !n.startsWith("."))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return null;
        }
    }

    public Path checkpointFile() {
        return checkpointFile;
    }

    /** The run folder the checkpoint belongs to, or null for a checkpoint outside one. */
    public Path runDir() {
        return runDir;
    }

    public Checkpoint checkpoint() {
        return checkpoint;
    }

    /** The model the checkpoint's parameters belong to: the one its stage trains. */
    public ModelConfig model() {
        return modelOf(config, checkpoint);
    }

    /** The model stage {@code c.stageIndex()} trains (a cascade's stages train networks of their own). */
    static ModelConfig modelOf(RunConfig config, Checkpoint c) {
        return config.modelAt(Math.min(c.stageIndex(), config.stages().size() - 1));
    }

    /** The run's config, as stored in the checkpoint. */
    public RunConfig config() {
        return config;
    }

    public Task task() {
        return stored.task();
    }

    /** One sample's input as the data reader makes it (rows, images, volumes or token ids). */
    public SampleShape sampleShape() {
        return stored.shape();
    }

    /** Whether the network takes each sample as a flat row (the mlp shorthand) rather than in its own shape. */
    public boolean takesRows() {
        return !ModelCompiler.wantsImages(model());
    }

    /** The named inputs the network takes, in order (empty for a model of one input). */
    public List<InputSignature> namedInputs() {
        return stored.named();
    }

    /** The shape of each network input, -1 for the batch. */
    public List<long[]> inputShapes() {
        if (!stored.named().isEmpty()) {
            return stored.named().stream().map(in -> in.shape().batchShape(-1)).toList();
        }
        long[] one = takesRows()
                ? new long[] {-1, stored.shape().values()}
                : stored.shape().batchShape(-1);
        return List.of(one);
    }

    /** The head's outputs: classes, target values, channels or the vocabulary's size. */
    public int outputs() {
        return stored.outputs();
    }

    /** Classes for classification and segmentation, else 0. */
    public int numClasses() {
        return task() == Task.CLASSIFICATION || task() == Task.SEGMENTATION ? stored.outputs() : 0;
    }

    /** Class names in id order where the data names them (an image folder's sub-folders), else null. */
    public List<String> classNames() {
        return classNames;
    }

    /** A text model's vocabulary, else null. */
    public Vocabulary vocabulary() {
        return stored.vocabulary();
    }

    /** Whether the loaded weights are the weight average. */
    public boolean usesEma() {
        return ema;
    }

    public boolean hasEma() {
        return hasEma;
    }

    /** The network itself, with the loaded weights (for export): do not train it. */
    public ComputationGraph network() {
        return net;
    }

    /** The network's outputs in inference mode (dropout off, batch norm's running figures). */
    public synchronized INDArray[] output(INDArray... inputs) {
        if (inputs.length != net.getNumInputArrays()) {
            throw new IllegalArgumentException(
                    "the network takes " + net.getNumInputArrays() + " input(s), not " + inputs.length);
        }
        List<long[]> expected = inputShapes();
        for (int i = 0; i < inputs.length; i++) {
            long[] want = expected.get(i);
            long[] got = inputs[i].shape();
            boolean fits = got.length == want.length;
            for (int d = 1; fits && d < want.length; d++) {
                fits = got[d] == want[d];
            }
            if (!fits) {
                throw new IllegalArgumentException("input " + i + " has shape " + Arrays.toString(got)
                        + ", but the model expects " + Arrays.toString(want) + " (-1: any batch size)");
            }
        }
        INDArray[] cast = Arrays.stream(inputs)
                .map(a -> a.dataType() == net.params().dataType()
                        ? a
                        : a.castTo(net.params().dataType()))
                .toArray(INDArray[]::new);
        return net.output(false, cast);
    }

    /** What the command line and the app show of the model. */
    public ModelCard card() {
        List<List<Long>> shapes = inputShapes().stream()
                .map(s -> Arrays.stream(s).boxed().toList())
                .toList();
        return new ModelCard(
                checkpointFile,
                runDir,
                checkpoint.runName(),
                checkpoint.stageName(),
                checkpoint.globalStep(),
                checkpoint.reason(),
                ema,
                hasEma,
                task(),
                shapes,
                outputs(),
                classNames,
                stored.tokens(),
                net.numParams());
    }
}
