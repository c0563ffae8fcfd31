package org.traindeck.engine.model.kernels.embedding;

import java.util.Collection;
import java.util.Objects;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.layers.PositionEmbedding;

/**
 * {@link PositionEmbedding} computed by TrainDeck's CPU kernel ({@link PositionEmbeddingKernelLayer}), optionally with
 * the inverted dropout that follows it in a GPT fused in. Same configuration otherwise (parameter "pos" [width,
 * maxLength], its updater and regularisation), so a network or checkpoint of either loads into the other.
 */
public class PositionEmbeddingKernel extends PositionEmbedding {

    @JsonProperty
    private double dropout;

    /** For JSON. */
    protected PositionEmbeddingKernel() {}

    /**
     * @param width   features; 0 to take them from the input type
     * @param dropout inverted dropout after the sum, in training (0: none)
     */
    public PositionEmbeddingKernel(long maxLength, long width, double dropout) {
        super(maxLength, width);
        if (!(dropout >= 0 && dropout < 1)) {
            throw new IllegalArgumentException("PositionEmbeddingKernel: dropout must be in [0, 1), got " + dropout);
        }
        this.dropout = dropout;
    }

    public double dropout() {
        return dropout;
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
            if (dropout > 0) {
                throw new IllegalStateException("PositionEmbeddingKernel \"" + getLayerName()
                        + "\": its CPU kernel computes in float32" + " but the network's data type is "
                        + networkDataType + ": use \"kernel\": \"dl4j\" for other data types");
            }
            // float16 training gets the SameDiff layer, with the same parameters
            return super.instantiate(conf, listeners, layerIndex, layerParamsView, initializeParams, networkDataType);
        }
        return KernelInstances.wire(
                new PositionEmbeddingKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PositionEmbeddingKernel other
                && super.equals(o)
                && Double.compare(dropout, other.dropout) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), dropout);
    }

    @Override
    public String toString() {
        return "PositionEmbeddingKernel(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "maxLength="
                + maxLength() + ", width=" + width() + ", dropout=" + dropout + ")";
    }
}
