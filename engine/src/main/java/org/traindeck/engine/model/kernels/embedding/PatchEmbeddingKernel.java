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
import org.traindeck.engine.model.layers.PatchEmbedding;

/**
 * {@link PatchEmbedding} computed by TrainDeck's CPU kernel ({@link PatchEmbeddingKernelLayer}) instead of SameDiff.
 * The same layer configuration (options, JSON fields, parameters W, b, pos and cls in that order, their layouts,
 * updater and regularisation), so a network or checkpoint of either loads into the other.
 */
public class PatchEmbeddingKernel extends PatchEmbedding implements InputGradients.Skippable {

    /** False where no parameter lies behind the input (images of data, their concat): nobody reads its gradient. */
    @JsonProperty
    private boolean inputGradient = true;

    /** For JSON. */
    protected PatchEmbeddingKernel() {}

    public PatchEmbeddingKernel(int patchSize, long width, boolean classToken) {
        super(patchSize, width, classToken);
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
            // the kernel computes in float32; float16 training gets the SameDiff layer, with the same parameters
            return super.instantiate(conf, listeners, layerIndex, layerParamsView, initializeParams, networkDataType);
        }
        return KernelInstances.wire(
                new PatchEmbeddingKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    /**
     * Floats one example adds to the kernel's buffers, for memory estimates: on the heap the image, the patch rows
     * (reused for the output and its gradient) and the projected tokens; natively the patch rows, their gradient and
     * the projected tokens.
     */
    public long bufferFloatsPerExample() {
        long n = (imageHeight() / patchSize()) * (imageWidth() / patchSize());
        long rows = n * channels() * patchSize() * patchSize();
        long tokens = n * width();
        long output = width() * (n + (classToken() ? 1 : 0));
        return 3 * rows + 2 * tokens + Math.max(rows, output);
    }

    public boolean inputGradient() {
        return inputGradient;
    }

    /** {@code false}: the backward pass returns zeros for the input, whose gradient nobody reads. */
    @Override
    public void setInputGradient(boolean inputGradient) {
        this.inputGradient = inputGradient;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PatchEmbeddingKernel k && k.inputGradient == inputGradient && super.equals(o);
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + Boolean.hashCode(inputGradient);
    }

    @Override
    public String toString() {
        return "PatchEmbeddingKernel(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "patchSize="
                + patchSize()
                + ", width=" + width() + ", classToken=" + classToken() + ", image=" + channels() + "x" + imageHeight()
                + "x"
                + imageWidth() + ")";
    }
}
