package org.traindeck.engine.model.kernels.transformer;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.WorkspaceMode;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.TimeDistributed;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * A block that reads a condition and/or context tokens: dense stems on the tokens, the condition and the context (so
 * their gradients check the block's gradients of its three inputs), the packing vertex, the block, an MSE head.
 */
final class ConditionedBlockGraphs {

    static final int WIDTH = 8;
    static final int HIDDEN = 12;
    static final int HEADS = 2;
    static final int CONDITION_IN = 3;
    static final int CONDITION = 5;
    static final int OUTPUTS = 3;

    private ConditionedBlockGraphs() {}

    /** Inputs "input" [WIDTH, length], then "condition" [CONDITION_IN] and/or "context" [WIDTH, contextLength]. */
    static ComputationGraph build(
            boolean condition,
            boolean context,
            int length,
            int contextLength,
            long seed,
            double dropout,
            boolean recompute) {
        return build(condition, context, length, contextLength, seed, dropout, recompute, null);
    }

    /** The same with a crossAttention layer in the block's place. */
    static ComputationGraph crossAttention(int length, int contextLength, long seed) {
        return build(false, true, length, contextLength, seed, 0, false, new CrossAttention(WIDTH, HEADS));
    }

    private static ComputationGraph build(
            boolean condition,
            boolean context,
            int length,
            int contextLength,
            long seed,
            double dropout,
            boolean recompute,
            Layer layer) {
        ComputationGraphConfiguration.GraphBuilder g = new NeuralNetConfiguration.Builder()
                .seed(seed)
                .dataType(DataType.FLOAT)
                .weightInit(WeightInit.XAVIER)
                .updater(new Adam(1e-2, 0.9, 0.999, 1e-4))
                .trainingWorkspaceMode(WorkspaceMode.ENABLED)
                .inferenceWorkspaceMode(WorkspaceMode.ENABLED)
                .graphBuilder()
                .addInputs("input");
        g.addLayer("stem", sequenceDense(), "input");
        InputType tokens = InputType.recurrent(WIDTH, length, RNNFormat.NCW);
        InputType[] types = {tokens};
        String[] packed = {"stem"};
        if (condition) {
            g.addInputs("condition");
            g.addLayer(
                    "conditionStem",
                    new DenseLayer.Builder()
                            .nOut(CONDITION)
                            .activation(Activation.IDENTITY)
                            .build(),
                    "condition");
            types = append(types, InputType.feedForward(CONDITION_IN));
            packed = append(packed, "conditionStem");
        }
        if (context) {
            g.addInputs("context");
            g.addLayer("contextStem", sequenceDense(), "context");
            types = append(types, InputType.recurrent(WIDTH, contextLength, RNNFormat.NCW));
            packed = append(packed, "contextStem");
        }
        g.addVertex("packed", new BlockInputsVertex(condition, context), packed);
        g.addLayer(
                "block1",
                layer == null
                        ? new TransformerBlock(
                                WIDTH, HIDDEN, HEADS, false, dropout, recompute, condition ? CONDITION : 0, context)
                        : layer,
                "packed");
        g.addLayer(
                "out",
                new RnnOutputLayer.Builder(LossFunctions.LossFunction.MSE)
                        .activation(Activation.IDENTITY)
                        .nOut(OUTPUTS)
                        .dataFormat(RNNFormat.NCW)
                        .build(),
                "block1");
        g.setOutputs("out");
        g.setInputTypes(types);
        ComputationGraph net = new ComputationGraph(g.build());
        net.init();
        return net;
    }

    private static TimeDistributed sequenceDense() {
        return new TimeDistributed(
                new DenseLayer.Builder()
                        .nOut(WIDTH)
                        .activation(Activation.IDENTITY)
                        .build(),
                RNNFormat.NCW);
    }

    @SafeVarargs
    private static <T> T[] append(T[] a, T... more) {
        T[] out = java.util.Arrays.copyOf(a, a.length + more.length);
        System.arraycopy(more, 0, out, a.length, more.length);
        return out;
    }
}
