package org.traindeck.engine.use;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.DoubleConsumer;
import java.util.stream.IntStream;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.api.runs.Evaluation;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.LabelMasks;

/**
 * Evaluates a trained model: streams its test data through the network in batches (so a test set larger than memory
 * works, its samples read one batch at a time from mapped files), works out the task's figures and writes them to
 * the run folder's {@code evaluation.json}.
 */
public final class ModelEvaluation {

    /** Values per batch, as validation takes them: small samples go 512 at a time, volumes a few at a time. */
    private static final int VALUES_PER_BATCH = 1 << 18;

    private ModelEvaluation() {}

    /**
     * @param dataArg  {@code --data}: a run config with {@code data.test}, or a source as a JSON file or text; null for
     *                 the run's own test data (else its validation data)
     * @param progress told the fraction done after each batch
     * @throws InvalidConfigException located, when the data cannot be used
     */
    public static Evaluation run(Path runOrCheckpoint, String dataArg, boolean ema, DoubleConsumer progress)
            throws CheckpointException, IOException {
        long start = System.nanoTime();
        TrainedModel model = TrainedModel.open(runOrCheckpoint, ema);
        EvaluationData.Chosen chosen =
                EvaluationData.choose(model.config(), model.checkpoint().stageIndex(), dataArg);
        try (DataLoader.Loaded loaded = chosen.loaded()) {
            Dataset data = loaded.validation();
            checkFits(model, data, chosen.description());
            Evaluation e = evaluate(model, data, chosen.description(), progress, start);
            Path file = EvaluationFile.target(model.runDir(), model.checkpointFile(), ema);
            EvaluationFile.write(e, file);
            return e.writtenTo(file);
        }
    }

    private static void checkFits(TrainedModel model, Dataset data, String what) {
        if (!model.namedInputs().isEmpty() || data.namedInputs()) {
            List<String> theirs = data.inputs().stream()
                    .map(in -> in.name() + " " + in.shape())
                    .toList();
            List<String> ours = model.namedInputs().stream()
                    .map(in -> in.name() + " " + in.shape())
                    .toList();
            if (!theirs.equals(ours) || data.task() != model.task() || data.outputCount() != model.outputs()) {
                throw new InvalidConfigException(
                        what.startsWith("--data") ? "--data" : "data",
                        "holds " + data + ", but the model was trained on the inputs " + ours + " for "
                                + model.task().json + " with " + model.outputs() + " outputs");
            }
            return;
        }
        if (data.task() != model.task()
                || data.outputCount() != model.outputs()
                || !data.shape().equals(model.sampleShape())) {
            throw new InvalidConfigException(
                    what.startsWith("--data") ? "--data" : "data",
                    "holds " + data + ", but the model was" + " trained on " + model.sampleShape() + " samples for "
                            + model.task().json + " with " + model.outputs() + " outputs");
        }
        if (model.vocabulary() != null && !Objects.equals(data.vocabulary(), model.vocabulary())) {
            throw new InvalidConfigException(
                    "data.train",
                    "the training text's vocabulary ("
                            + (data.vocabulary() == null ? 0 : data.vocabulary().size())
                            + " characters) is not the one the model was trained with ("
                            + model.vocabulary().size()
                            + "): a token's id would mean another character");
        }
    }

    static Evaluation evaluate(
            TrainedModel model, Dataset data, String description, DoubleConsumer progress, long startNanos) {
        Task task = model.task();
        int batch = Math.max(1, Math.min(512, VALUES_PER_BATCH / Math.max(1, data.featureCount())));
        BatchMaker maker = new BatchMaker(data, !model.takesRows(), null, DataType.FLOAT);
        int[] order = BatchMaker.epochOrder(data.size(), false, 0, 0, 0);
        int batches = maker.batchesPerEpoch(batch);
        ClassCounts classes = switch (task) {
            case CLASSIFICATION -> new ClassCounts(data.outputCount(), 1, true);
            case SEGMENTATION -> new ClassCounts(data.outputCount(), data.targetLength(), true);
            case SEQUENCE -> new ClassCounts(data.outputCount(), data.targetLength(), false);
            default -> null;
        };
        ValueFigures values = classes != null
                ? null
                : data.perStepValues()
                        ? new ValueFigures(false, data.outputCount(), data.targetLength() / data.outputCount())
                        : new ValueFigures(
                                task == Task.RECONSTRUCTION, task == Task.RECONSTRUCTION ? 1 : data.targetLength());
        for (int b = 0; b < batches; b++) {
            BatchMaker.Batch x = maker.batch(order, b, batch, 0, 0, 0, false);
            INDArray out = model.output(x.inputs())[0];
            if (classes != null) {
                classes.add(flat(out), flat(x.labels()), x.labelMask() == null ? null : flat(x.labelMask()), x.size());
            } else {
                float[] labels = flat(x.labels());
                values.add(
                        flat(out),
                        labels,
                        x.labelMask() == null
                                ? null
                                : LabelMasks.perValue(flat(x.labelMask()), x.size(), labels.length / x.size()),
                        x.size());
            }
            progress.accept((b + 1.0) / batches);
        }
        boolean perClass = task == Task.CLASSIFICATION || task == Task.SEGMENTATION;
        List<String> names = perClass ? classNames(model, data) : null;
        Map<String, Double> figures = classes != null ? classes.figures(task) : values.figures();
        return new Evaluation(
                model.checkpointFile(),
                model.runDir(),
                model.checkpoint().runName(),
                model.usesEma(),
                task,
                description,
                data.size(),
                figures,
                names,
                perClass ? classes.matrix() : null,
                perClass ? classes.perClass(names) : List.of(),
                (System.nanoTime() - startNanos) / 1e9,
                null);
    }

    private static List<String> classNames(TrainedModel model, Dataset data) {
        if (data.classNames() != null) {
            return data.classNames();
        }
        if (model.classNames() != null) {
            return model.classNames();
        }
        return IntStream.range(0, data.outputCount()).mapToObj(String::valueOf).toList();
    }

    private static float[] flat(INDArray a) {
        return a.castTo(DataType.FLOAT).dup('c').data().asFloat();
    }
}
