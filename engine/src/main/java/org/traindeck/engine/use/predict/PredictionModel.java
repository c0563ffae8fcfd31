package org.traindeck.engine.use.predict;

import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.InputRange;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.data.Normalizer;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.data.Vocabulary;
import org.traindeck.engine.outputs.PredictionInputException;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.use.TrainedModel;

/**
 * What predicting needs of a trained model: its task, one sample's input shape (as the data reader makes it), whether
 * the network takes flat rows, the head's outputs, the training source (how raw inputs were converted), the
 * normaliser fitted on the training rows (null when none), the vocabulary and class names where there are any, and
 * the network's forward pass in inference mode.
 */
public record PredictionModel(
        Task task,
        SampleShape shape,
        boolean takesRows,
        int outputs,
        SourceConfig source,
        Normalizer normalizer,
        Vocabulary vocabulary,
        List<String> classNames,
        List<InputSignature> named,
        InputRange trainedRange,
        Forward forward) {

    /** The network's output for a batch in its input layout, one array per input (dropout off, batch norm's running figures). */
    @FunctionalInterface
    public interface Forward {
        INDArray output(INDArray... inputs);
    }

    public PredictionModel {
        classNames = classNames == null ? null : List.copyOf(classNames);
        named = named == null ? List.of() : List.copyOf(named);
    }

    /**
     * The view of an opened model, with the data the checkpoint's stage trained on (a stage's own, else the run's);
     * a CSV source's normaliser is refitted on its training rows, so that file must still be readable.
     */
    public static PredictionModel of(TrainedModel model) {
        RunConfig config = model.config();
        DataConfig data = config.data();
        String at = "data";
        for (int i = 0; i < config.stages().size(); i++) {
            StageConfig stage = config.stages().get(i);
            if (stage.name().equals(model.checkpoint().stageName()) && stage.data() != null) {
                data = stage.data();
                at = "stages[" + i + "].data";
            }
        }
        Normalizer normalizer;
        try {
            normalizer = DataLoader.trainingNormalizer(config, data, at);
        } catch (InvalidConfigException e) {
            throw new PredictionInputException(
                    "the model's inputs are normalised with figures fitted on its training data, which "
                            + "cannot be read now: " + e.getMessage(),
                    e);
        }
        return new PredictionModel(
                model.task(),
                model.sampleShape(),
                model.takesRows(),
                model.outputs(),
                data.train(),
                normalizer,
                model.vocabulary(),
                model.classNames(),
                model.namedInputs(),
                trainedRange(model, data),
                inputs -> model.output(inputs)[0]);
    }

    /** The range the run folder recorded: of the first stage's training data, so only for a stage trained on the same. */
    private static InputRange trainedRange(TrainedModel model, DataConfig data) {
        RunConfig config = model.config();
        if (model.runDir() == null
                || !data.equals(config.dataFor(config.stages().get(0)))) {
            return null;
        }
        return InputRange.read(RunFolder.of(model.runDir()).inputRange());
    }

    /** The batch shape the network takes for {@code n} samples. */
    public long[] batchShape(int n) {
        return takesRows ? new long[] {n, shape.values()} : shape.batchShape(n);
    }

    /** Classes for classification and segmentation, else 0. */
    public int numClasses() {
        return task == Task.CLASSIFICATION || task == Task.SEGMENTATION ? outputs : 0;
    }

    /** A class's name where the data names its classes, else its id. */
    public String className(int id) {
        return classNames != null && id < classNames.size() ? classNames.get(id) : String.valueOf(id);
    }
}
