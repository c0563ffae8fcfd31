package org.traindeck.engine.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.DoubleConsumer;
import org.traindeck.engine.api.runs.Evaluation;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.outputs.PredictionInputException;
import org.traindeck.engine.use.ModelCard;
import org.traindeck.engine.use.ModelEvaluation;
import org.traindeck.engine.use.ModelExport;
import org.traindeck.engine.use.TrainedModel;
import org.traindeck.engine.use.export.ExportException;
import org.traindeck.engine.use.export.ExportFormat;
import org.traindeck.engine.use.export.WeightsExport;
import org.traindeck.engine.use.predict.CascadePrediction;
import org.traindeck.engine.use.predict.PredictionJob;
import org.traindeck.engine.use.predict.PredictionModel;
import org.traindeck.engine.use.predict.PredictionReport;
import org.traindeck.engine.use.predict.PredictionRequest;

/**
 * What a trained model can do once its run has ended: say what it is, be evaluated, predict, and be exported. Each
 * takes a run folder (its best checkpoint, else its newest valid one) or a checkpoint file.
 */
public final class TrainedModels {

    TrainedModels() {}

    /**
     * What a trained model is (task, input shapes, classes or vocabulary, which checkpoint), with its weight average
     * when {@code ema}.
     */
    public ModelCard card(Path runOrCheckpoint, boolean ema) throws CheckpointException {
        return TrainedModel.open(runOrCheckpoint, ema).card();
    }

    /**
     * Evaluates a trained model on {@code data} (a run config with data.test, or a source as a JSON file or text; null
     * for the run's own data.test, else its validation data), and writes the figures to the run folder's
     * evaluation.json (evaluation-ema.json for the weight average).
     *
     * @param progress told the fraction done after each batch, on the calling thread
     * @throws InvalidConfigException located, when the data cannot be used
     */
    public Evaluation evaluate(Path runOrCheckpoint, String data, boolean ema, DoubleConsumer progress)
            throws CheckpointException, IOException {
        return ModelEvaluation.run(runOrCheckpoint, data, ema, progress);
    }

    /**
     * {@code traindeck predict}: a trained model's predictions on inputs, written whole or not at all, or a text
     * model's continuation of a prompt (each character handed to {@code eachCharacter} as it is drawn).
     *
     * @throws PredictionInputException an input or output the model cannot take, naming it and what is expected
     */
    public PredictionReport predict(PredictionRequest request, Consumer<String> eachCharacter)
            throws CheckpointException, IOException {
        RunConfig cascade = CascadePrediction.cascadeOf(request.model());
        if (cascade != null && request.prompt() == null) {
            return CascadePrediction.run(cascade, request);
        }
        return PredictionJob.run(
                PredictionModel.of(TrainedModel.open(request.model(), request.ema())), request, eachCharacter);
    }

    /**
     * Writes a trained model's weights (its weight average when {@code ema}) as safetensors or npz under PyTorch's names
     * and layouts, with the graph as JSON (docs/export.md). Nothing is written half-way; an existing file is kept unless
     * {@code force}.
     *
     * @throws ExportException for a node export cannot name, a file name that does not fit the format, or a failed write
     */
    public WeightsExport.Written export(Path runOrCheckpoint, ExportFormat format, boolean ema, Path out, boolean force)
            throws CheckpointException {
        return ModelExport.write(TrainedModel.open(runOrCheckpoint, ema), format, out, force);
    }
}
