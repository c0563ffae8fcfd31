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
        long kept = keptFloatsPerExample(length, BlockInputsVertex.contextSteps(inputType, width, 0));
        return new LayerMemoryReport.Builder(getLayerName(), CrossAttention.class, inputType, inputType)
                .standardMemory(
                        params, getIUpdater() == null ? 0 : getIUpdater().stateSize(params))
                .workingMemory(0, kept, 0, kept)
                .cacheMemory(MemoryReport.CACHE_MODE_ALL_ZEROS, MemoryReport.CACHE_MODE_ALL_ZEROS)
                .build();
    }

    /** Floats per example its buffers keep between the passes, for T steps attending to S context tokens. */
    public long keptFloatsPerExample(long length, long contextLength) {
        return bufferFloatsPerExample(width, heads, length, contextLength);
    }

    /**
     * Floats per example a cross-attention's buffers ({@link CrossAttentionBuffers}) hold: six [T, W] arrays (normed,
     * queries, attended, product, the queries' gradient, the norm's xhat), five [S, W] (keys and values, the context
     * rows, the keys' and values' gradients), the probabilities [heads, T, S], the norm's statistics [T], the
     * scratch and the rows read back from the products ([T, W] or [S, 2W]).
     */
    static long bufferFloatsPerExample(long width, long heads, long steps, long contextSteps) {
        long n = steps * width;
        long m = contextSteps * width;
        return 6 * n + 5 * m + heads * steps * contextSteps + steps + Math.max(n, m) + Math.max(n, 2 * m);
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
