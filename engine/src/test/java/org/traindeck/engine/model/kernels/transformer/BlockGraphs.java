package org.traindeck.engine.model.kernels.transformer;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.WorkspaceMode;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.TimeDistributed;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.model.layers.LayerNorm;
import org.traindeck.engine.model.layers.SelfAttention;

/** Two blocks spelled out as TrainDeck's nodes build them, and the same two blocks fused, each with an MSE head. */
final class BlockGraphs {

    static final int WIDTH = 8;
    static final int HIDDEN = 12;
    static final int HEADS = 2;
    static final int OUTPUTS = 3;

    private BlockGraphs() {}

    private static ComputationGraphConfiguration.GraphBuilder builder(long seed) {
        return new NeuralNetConfiguration.Builder()
                .seed(seed)
                .dataType(DataType.FLOAT)
                .weightInit(WeightInit.XAVIER)
                // Adam's epsilon above rounding noise: the attention's key bias has a gradient of exactly 0 in theory,
                // and
                // with epsilon 1e-8 Adam would turn either side's 1e-9 of float noise into full-size, different steps
                .updater(new Adam(1e-2, 0.9, 0.999, 1e-4))
                .trainingWorkspaceMode(WorkspaceMode.ENABLED)
                .inferenceWorkspaceMode(WorkspaceMode.ENABLED)
                .graphBuilder()
                .addInputs("input");
    }

    static ComputationGraph reference(boolean causal, int length, long seed) {
        ComputationGraphConfiguration.GraphBuilder g = builder(seed);
        String last = stem(g);
        for (int block = 1; block <= 2; block++) {
            String p = "block" + block + "_";
            g.addLayer(p + "norm1", new LayerNorm(1e-5), last);
            g.addLayer(p + "attention", new SelfAttention(WIDTH, HEADS, causal), p + "norm1");
            g.addVertex(p + "residual1", new ElementWiseVertex(ElementWiseVertex.Op.Add), p + "attention", last);
            g.addLayer(p + "norm2", new LayerNorm(1e-5), p + "residual1");
            g.addLayer(
                    p + "mlp1",
                    new TimeDistributed(
                            new DenseLayer.Builder()
                                    .nOut(HIDDEN)
                                    .activation(Activation.GELU)
                                    .weightInit(WeightInit.RELU)
                                    .build(),
                            RNNFormat.NCW),
                    p + "norm2");
            g.addLayer(
                    p + "mlp2",
                    new TimeDistributed(
                            new DenseLayer.Builder()
                                    .nOut(WIDTH)
                                    .activation(Activation.IDENTITY)
                                    .weightInit(WeightInit.XAVIER)
                                    .build(),
                            RNNFormat.NCW),
                    p + "mlp1");
            g.addVertex(p + "residual2", new ElementWiseVertex(ElementWiseVertex.Op.Add), p + "mlp2", p + "residual1");
            last = p + "residual2";
        }
        return head(g, last, length);
    }

    static ComputationGraph fused(boolean causal, int length, long seed, double dropout, boolean recompute) {
        ComputationGraphConfiguration.GraphBuilder g = builder(seed);
        g.addLayer("block1", new TransformerBlock(0, HIDDEN, HEADS, causal, dropout, recompute), stem(g));
        g.addLayer("block2", new TransformerBlock(0, HIDDEN, HEADS, causal, dropout, recompute), "block1");
        return head(g, "block2", length);
    }

    /** A dense layer before the blocks: its gradient is made of the first block's input gradient. */
    private static String stem(ComputationGraphConfiguration.GraphBuilder g) {
        g.addLayer(
                "stem",
                new TimeDistributed(
                        new DenseLayer.Builder()
                                .nOut(WIDTH)
                                .activation(Activation.IDENTITY)
                                .build(),
                        RNNFormat.NCW),
                "input");
        return "stem";
    }

    private static ComputationGraph head(ComputationGraphConfiguration.GraphBuilder g, String last, int length) {
        g.addLayer(
                "out",
                new RnnOutputLayer.Builder(LossFunctions.LossFunction.MSE)
                        .activation(Activation.IDENTITY)
                        .nOut(OUTPUTS)
                        .dataFormat(RNNFormat.NCW)
                        .build(),
                last);
        g.setOutputs("out");
        g.setInputTypes(InputType.recurrent(WIDTH, length, RNNFormat.NCW));
        ComputationGraph net = new ComputationGraph(g.build());
        net.init();
        return net;
    }
}
