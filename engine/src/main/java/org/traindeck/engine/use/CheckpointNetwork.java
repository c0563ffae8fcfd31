package org.traindeck.engine.use;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.OneDnnHelpers;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.train.Nd4jRuntime;

/** A checkpoint's network rebuilt exactly as training builds it, with the checkpoint's values loaded into it. */
final class CheckpointNetwork {

    private CheckpointNetwork() {}

    /**
     * @param trained the model the checkpoint's stage trains
     * @param values  the parameters (or the weight average) to load
     * @throws CheckpointException naming {@code file} when the model does not build here or the values do not fit it
     */
    static ComputationGraph build(Path file, RunConfig config, ModelConfig trained, StoredShape stored, float[] values)
            throws CheckpointException {
        Nd4jRuntime.init();
        ComputationGraph net;
        try {
            net = ModelCompiler.build(trained, inputOf(trained, stored), config.seed(), KernelUse.forCurrentBackend());
        } catch (RuntimeException e) {
            throw new CheckpointException(
                    file + ": its model does not build in this TrainDeck (" + e.getMessage() + ")", e);
        }
        if (net.numParams() != values.length) {
            throw new CheckpointException(file + " holds " + values.length
                    + " parameters, but its config builds a model of " + net.numParams()
                    + " in this TrainDeck: it was written by another version, and cannot be opened for use");
        }
        INDArray params = net.params();
        params.assign(Nd4j.create(values, params.shape(), DataType.FLOAT).castTo(params.dataType()));
        // as training prepares its models: oneDNN's convolutions are several times faster where they work
        if (config.performance().onednn()
                && Nd4jRuntime.oneDnnUnavailableReason() == null
                && OneDnnHelpers.unusableReason() == null) {
            OneDnnHelpers.install(net);
        }
        return net;
    }

    /** What the network sees, as {@link ModelCompiler#inputOf} works it out from the training data. */
    private static ModelInput inputOf(ModelConfig model, StoredShape s) {
        if (!s.named().isEmpty()) {
            return ModelInput.named(
                    s.named(), s.task(), s.outputs(), s.task() == Task.REGRESSION && s.targetLength() > s.outputs());
        }
        boolean images = ModelCompiler.wantsImages(model);
        boolean tokens = s.shape() instanceof SampleShape.Tokens;
        InputType input = images
                ? s.shape().inputType(s.outputs())
                : InputType.feedForward(s.shape().values());
        return new ModelInput(input, s.task(), s.outputs(), tokens && images);
    }
}
