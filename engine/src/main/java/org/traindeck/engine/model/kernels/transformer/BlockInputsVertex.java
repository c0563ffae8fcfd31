package org.traindeck.engine.model.kernels.transformer;

import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.inputs.InvalidInputTypeException;
import org.deeplearning4j.nn.conf.memory.LayerMemoryReport;
import org.deeplearning4j.nn.conf.memory.MemoryReport;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * Packs a block's tokens [mb, W, T], its conditioning vector [mb, C] and its context tokens [mb, W, S] into one array
 * [mb, 1 + W T + C + W S] (per example: T, the tokens, the condition, the context, each in c order), because a DL4J
 * layer takes one input: a conditioned or cross-attending {@link TransformerBlock} or a {@link CrossAttention} reads
 * it and splits it again ({@link BlockInputsLayout}). The leading T tells the two lengths apart at run time. It has no
 * parameters; its backward pass splits the gradient the same way.
 */
public class BlockInputsVertex extends GraphVertex {

    @JsonProperty
    private boolean condition;

    @JsonProperty
    private boolean context;

    /** For JSON. */
    protected BlockInputsVertex() {}

    /** Inputs: the tokens, then the condition when {@code condition}, then the context when {@code context}. */
    public BlockInputsVertex(boolean condition, boolean context) {
        this.condition = condition;
        this.context = context;
    }

    public boolean hasCondition() {
        return condition;
    }

    public boolean hasContext() {
        return context;
    }

    /** The packed array's type: a vector per example of the packed size, which still knows the tokens' steps. */
    public static final class Packed extends InputType.InputTypeFeedForward {
        private final long steps;

        public Packed(long size, long steps) {
            super(size, null);
            this.steps = steps;
        }

        public long steps() {
            return steps;
        }
    }

    /** The tokens' steps T of a block's input type, packed or a plain sequence (-1: not known before the data). */
    static long steps(InputType in) {
        if (in instanceof Packed p) {
            return p.steps();
        }
        if (in instanceof InputType.InputTypeRecurrent r) {
            return r.getTimeSeriesLength();
        }
        return -1;
    }

    @Override
    public GraphVertex clone() {
        return new BlockInputsVertex(condition, context);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BlockInputsVertex v && v.condition == condition && v.context == context;
    }

    @Override
    public int hashCode() {
        return (condition ? 2 : 0) + (context ? 1 : 0) + 1_733;
    }

    @Override
    public long numParams(boolean backprop) {
        return 0;
    }

    @Override
    public int minVertexInputs() {
        return 1 + (condition ? 1 : 0) + (context ? 1 : 0);
    }

    @Override
    public int maxVertexInputs() {
        return minVertexInputs();
    }

    @Override
    public org.deeplearning4j.nn.graph.vertex.GraphVertex instantiate(
            ComputationGraph graph,
            String name,
            int idx,
            INDArray paramsView,
            boolean initializeParams,
            DataType networkDatatype) {
        return new BlockInputs(graph, name, idx, condition, context, networkDatatype);
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType... in) throws InvalidInputTypeException {
        if (in.length != minVertexInputs() || !(in[0] instanceof InputType.InputTypeRecurrent tokens)) {
            throw new InvalidInputTypeException("packs tokens [features, steps], then a condition and/or a context");
        }
        long width = tokens.getSize();
        long steps = tokens.getTimeSeriesLength();
        long size = steps > 0 ? 1 + width * steps : -1;
        int next = 1;
        if (condition) {
            long c = in[next++].arrayElementsPerExample();
            size = size > 0 && c > 0 ? size + c : -1;
        }
        if (context) {
            long s = in[next] instanceof InputType.InputTypeRecurrent r ? r.getTimeSeriesLength() : -1;
            size = size > 0 && s > 0 ? size + width * s : -1;
        }
        return new Packed(size, steps);
    }

    @Override
    public MemoryReport getMemoryReport(InputType... inputTypes) {
        InputType out = getOutputType(-1, inputTypes);
        return new LayerMemoryReport.Builder(null, BlockInputsVertex.class, inputTypes[0], out)
                .standardMemory(0, 0)
                .workingMemory(0, 0, 0, 0)
                .cacheMemory(0, 0)
                .build();
    }

    @Override
    public String toString() {
        return "BlockInputsVertex(condition=" + condition + ", context=" + context + ")";
    }
}
