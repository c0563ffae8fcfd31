package org.traindeck.engine.model.kernels.embedding;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.kernels.InputGradients;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.layers.PatchEmbedding3D;

/**
 * {@link PatchEmbedding3D} computed by TrainDeck's CPU kernel ({@link PatchEmbedding3DKernelLayer}) instead of
 * SameDiff: the same configuration, parameters (W, b, pos in that order) and layouts, so a network or checkpoint of
 * either loads into the other.
 */
public class PatchEmbedding3DKernel extends PatchEmbedding3D implements InputGradients.Skippable {

    @JsonProperty
    private boolean recompute;
    /** False where the input is the network's own (a volume of data): nobody reads its gradient. */
    @JsonProperty
    private boolean inputGradient = true;

    /** For JSON. */
    protected PatchEmbedding3DKernel() {}

    public PatchEmbedding3DKernel(int patchSize, long width) {
        this(patchSize, width, false);
    }

    /** @param recompute keep nothing between the passes but the input: the backward pass cuts the patches again */
    public PatchEmbedding3DKernel(int patchSize, long width, boolean recompute) {
        super(patchSize, width);
        this.recompute = recompute;
    }

    public boolean isRecompute() {
        return recompute;
    }

    /** Floats per example of the kernel's buffers ({@link VolumePatchBuffers}; one set per thread with recompute). */
    public long bufferFloatsPerExample() {
        return VolumePatchBuffers.patchesFloatsPerExample(
                channels() * depth() * height() * volumeWidth(), tokens(), width());
    }

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        if (networkDataType != DataType.FLOAT) {
            // the kernel computes in float32; other precisions get the SameDiff layer, with the same parameters
            return super.instantiate(conf, listeners, layerIndex, layerParamsView, initializeParams, networkDataType);
        }
        return KernelInstances.wire(
                new PatchEmbedding3DKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    public boolean inputGradient() {
        return inputGradient;
    }

    /** {@code false}: the backward pass returns zeros for the input, for a layer that reads the network's input. */
    @Override
    public void setInputGradient(boolean inputGradient) {
        this.inputGradient = inputGradient;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PatchEmbedding3DKernel k
                && k.recompute == recompute
                && k.inputGradient == inputGradient
                && super.equals(o);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * super.hashCode() + Boolean.hashCode(recompute)) + Boolean.hashCode(inputGradient);
    }
}
