package org.traindeck.engine.model.kernels.transformer;

import java.util.Collection;
import java.util.Objects;
import org.deeplearning4j.nn.api.ParamInitializer;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.memory.LayerMemoryReport;
import org.deeplearning4j.nn.conf.memory.MemoryReport;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonIgnore;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * Multi-head cross-attention as one DL4J layer: queries from tokens [mb, W, T], keys and values from context tokens
 * [mb, W, S], both packed into its one input by {@link BlockInputsVertex}; gives [mb, W, T] = attention(x, context) Wo
 * + bo, with neither a norm before it nor a residual (as the attention node). Runs on {@link CrossAttentionLayer}.
 */
public class CrossAttention extends BaseLayer {

    @JsonProperty
    private long width;

    @JsonProperty
    private int heads;

    /** For JSON. */
    protected CrossAttention() {}

    public CrossAttention(long width, int heads) {
        if (width <= 0 || heads <= 0 || width % heads != 0) {
            throw new IllegalArgumentException(
                    "CrossAttention: width and heads positive, heads dividing the width; got " + width + ", " + heads);
        }
        this.width = width;
        this.heads = heads;
    }

    @JsonIgnore
    public long getWidth() {
        return width;
    }

    @JsonIgnore
    public int getHeads() {
        return heads;
    }

    @Override
    public org.deeplearning4j.nn.api.Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        return KernelInstances.wire(
                new CrossAttentionLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public ParamInitializer initializer() {
        return CrossAttentionParams.INSTANCE;
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        return InputType.recurrent(width, BlockInputsVertex.steps(inputType), RNNFormat.NCW);
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        // the width is the node's, checked against its inputs when it is built
    }

    @Override
    public InputPreProcessor getPreProcessorForInputType(InputType inputType) {
        return null;
    }

    @Override
    public boolean isPretrainParam(String paramName) {
        return false;
    }

    @Override
    public LayerMemoryReport getMemoryReport(InputType inputType) {
        long params = initializer().numParams(this);
        long length = Math.max(1, BlockInputsVertex.steps(inputType));
        return new LayerMemoryReport.Builder(getLayerName(), CrossAttention.class, inputType, inputType)
                .standardMemory(
                        params, getIUpdater() == null ? 0 : getIUpdater().stateSize(params))
                .workingMemory(0, 8 * width * length, 0, 8 * width * length)
                .cacheMemory(MemoryReport.CACHE_MODE_ALL_ZEROS, MemoryReport.CACHE_MODE_ALL_ZEROS)
                .build();
    }

    @Override
    public CrossAttention clone() {
        return (CrossAttention) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CrossAttention other && super.equals(o) && width == other.width && heads == other.heads;
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), width, heads);
    }

    @Override
    public String toString() {
        return "CrossAttention(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "width=" + width + ", heads="
                + heads + ")";
    }
}
