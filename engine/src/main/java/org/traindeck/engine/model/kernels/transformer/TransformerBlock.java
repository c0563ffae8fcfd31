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
import org.traindeck.engine.model.kernels.TransformerBlockBuffers;

/**
 * A pre-norm transformer block as one DL4J layer on sequences [mb, width, T]: x + drop(attention(norm1(x))), then
 * r + drop(mlp2(gelu(mlp1(norm2(r))))). Its parameters have the names, shapes, layouts and order that the same block
 * spelled out as layerNorm, attention and dense nodes has, so a checkpoint of either loads into the other
 * ({@link TransformerBlockParams}). It runs on {@link TransformerBlockLayer}: TrainDeck's own CPU kernel. Conditioned
 * (adaLN-Zero, DiT's: {@link TransformerBlockModulation}) each norm's output becomes n (1 + scale) + shift and each
 * branch is multiplied by its gate, all six from a linear map of SiLU(condition), zero at the start; with a context,
 * a pre-norm cross-attention to the context tokens follows the self-attention ({@link TransformerBlockCrossAttention}).
 */
public class TransformerBlock extends BaseLayer {

    public static final double EPSILON = 1e-5;

    @JsonProperty
    private long width;

    @JsonProperty
    private long hidden;

    @JsonProperty
    private int heads;

    @JsonProperty
    private boolean causal;

    @JsonProperty
    private double dropout;

    @JsonProperty
    private boolean recompute;

    /** The conditioning vector's features (adaLN-Zero), 0 without one. */
    @JsonProperty
    private long conditionWidth;

    /** Whether the block attends to context tokens after its self-attention (of its own width). */
    @JsonProperty
    private boolean context;

    /** For JSON. */
    protected TransformerBlock() {}

    /**
     * @param width   features in and out; 0 to take them from the input type
     * @param hidden  the MLP's hidden units
     * @param dropout the rate after the attention and after the MLP (0: none)
     * @param recompute keep only the input between the forward and the backward pass and compute the rest again
     */
    public TransformerBlock(long width, long hidden, int heads, boolean causal, double dropout, boolean recompute) {
        this.width = width;
        this.hidden = hidden;
        this.heads = heads;
        this.causal = causal;
        this.dropout = dropout;
        this.recompute = recompute;
        if (width < 0 || hidden <= 0 || heads <= 0) {
            throw refuse("width must be >= 0 (0: from the input), hidden and heads positive; got width=" + width
                    + ", hidden=" + hidden + ", heads=" + heads);
        }
        if (!(dropout >= 0 && dropout < 1)) {
            throw refuse("dropout must be in [0, 1), got " + dropout);
        }
        checkHeads();
    }

    /**
     * A block that also reads a conditioning vector [conditionWidth] (adaLN-Zero; 0: none) and/or context tokens
     * [width, S] (cross-attention): its input is then the three packed by {@link BlockInputsVertex}.
     */
    public TransformerBlock(
            long width,
            long hidden,
            int heads,
            boolean causal,
            double dropout,
            boolean recompute,
            long conditionWidth,
            boolean context) {
        this(width, hidden, heads, causal, dropout, recompute);
        if (conditionWidth < 0 || (width <= 0 && (conditionWidth > 0 || context))) {
            throw refuse("a conditioned block needs its width (got " + width + ") and a condition width >= 0 (got "
                    + conditionWidth + ")");
        }
        this.conditionWidth = conditionWidth;
        this.context = context;
    }

    @JsonIgnore
    public long getConditionWidth() {
        return conditionWidth;
    }

    @JsonIgnore
    public boolean hasContext() {
        return context;
    }

    /** Whether its input is packed (a condition or a context besides the tokens). */
    @JsonIgnore
    public boolean isPacked() {
        return conditionWidth > 0 || context;
    }

    @JsonIgnore
    public long getWidth() {
        return width;
    }

    @JsonIgnore
    public long getHidden() {
        return hidden;
    }

    @JsonIgnore
    public int getHeads() {
        return heads;
    }

    @JsonIgnore
    public boolean isCausal() {
        return causal;
    }

    @JsonIgnore
    public double getDropout() {
        return dropout;
    }

    @JsonIgnore
    public boolean isRecompute() {
        return recompute;
    }

    private void checkHeads() {
        if (width > 0 && width % heads != 0) {
            throw refuse(heads + " heads do not divide the width " + width);
        }
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
                new TransformerBlockLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public ParamInitializer initializer() {
        return TransformerBlockParams.INSTANCE;
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        if (isPacked()) {
            return InputType.recurrent(width, BlockInputsVertex.steps(inputType), RNNFormat.NCW);
        }
        long features = features(inputType);
        if (width > 0 && features != width) {
            throw refuse(
                    "configured for width " + width + " but the input " + inputType + " has " + features + " features");
        }
        return inputType;
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        if (!isPacked() && (width <= 0 || override)) {
            width = features(inputType);
            checkHeads();
        }
    }

    private long features(InputType inputType) {
        if (!(inputType instanceof InputType.InputTypeRecurrent rnn) || rnn.getFormat() != RNNFormat.NCW) {
            throw refuse("takes sequences [minibatch, features, time] (InputType.recurrent, NCW), got " + inputType);
        }
        return rnn.getSize();
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
        long length = Math.max(1, BlockInputsVertex.steps(inputType));
        long perExample = keptFloatsPerExample(length)
                + sideFloatsPerExample(length, BlockInputsVertex.contextSteps(inputType, width, conditionWidth));
        long params = initializer().numParams(this);
        return new LayerMemoryReport.Builder(getLayerName(), TransformerBlock.class, inputType, inputType)
                .standardMemory(
                        params, getIUpdater() == null ? 0 : getIUpdater().stateSize(params))
                .workingMemory(0, perExample, 0, perExample)
                .cacheMemory(MemoryReport.CACHE_MODE_ALL_ZEROS, MemoryReport.CACHE_MODE_ALL_ZEROS)
                .build();
    }

    /**
     * Floats per example the cross-attention (its buffers and output rows, kept with recompute too) and adaLN-Zero (the
     * branches before their gates, the six vectors) keep besides the block's buffers, and with either the copies of
     * the packed input: the condition, the context and the packed gradient.
     */
    public long sideFloatsPerExample(long length, long contextLength) {
        long cross = context
                ? CrossAttention.bufferFloatsPerExample(width, heads, length, contextLength) + width * length
                : 0;
        long copies = conditionWidth > 0 || context
                ? 1 + width * length + 2 * (conditionWidth + (context ? width * contextLength : 0))
                : 0;
        return cross + (conditionWidth > 0 ? 2 * width * length + 6 * width : 0) + copies;
    }

    /** Floats per example of the kernel's activation and gradient buffers (shared by a thread's blocks with recompute). */
    public long bufferFloatsPerExample(long length) {
        return TransformerBlockBuffers.floatsPerExample(width, hidden, heads, length, recompute);
    }

    /**
     * Floats per example this block keeps of its own: its buffers, or with recompute its attention's output and its
     * dropout masks.
     */
    public long keptFloatsPerExample(long length) {
        long masks = dropout > 0 ? (context ? 3 : 2) * width * length : 0;
        return recompute ? masks + width * length : masks + bufferFloatsPerExample(length);
    }

    private IllegalArgumentException refuse(String message) {
        String name = getLayerName() == null ? "TransformerBlock" : "TransformerBlock \"" + getLayerName() + "\"";
        return new IllegalArgumentException(name + ": " + message);
    }

    @Override
    public TransformerBlock clone() {
        return (TransformerBlock) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransformerBlock other
                && super.equals(o)
                && width == other.width
                && hidden == other.hidden
                && heads == other.heads
                && causal == other.causal
                && Double.compare(dropout, other.dropout) == 0
                && recompute == other.recompute
                && conditionWidth == other.conditionWidth
                && context == other.context;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                super.hashCode(), width, hidden, heads, causal, dropout, recompute, conditionWidth, context);
    }

    @Override
    public String toString() {
        return "TransformerBlock(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "width=" + width
                + ", hidden=" + hidden + ", heads=" + heads + ", causal=" + causal + ", dropout=" + dropout
                + ", recompute=" + recompute + ", conditionWidth=" + conditionWidth + ", context=" + context + ")";
    }
}
