package org.traindeck.engine.model.layers;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.TimeDistributed;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** A small pre-norm ViT built from every layer in the package, for the round-trip and training tests. */
final class TinyVit {

    private TinyVit() {}

    static ComputationGraphConfiguration configuration(
            DataType type,
            IUpdater updater,
            int imageSize,
            int channels,
            int patch,
            int width,
            int heads,
            int blocks,
            int classes) {
        ComputationGraphConfiguration.GraphBuilder b =
                TinyGraphs.base(type, updater, InputType.convolutional(imageSize, imageSize, channels));
        b.addLayer("patches", new PatchEmbedding(patch, width, true), "in");
        String stream = "patches";
        for (int i = 0; i < blocks; i++) {
            stream = block(b, "b" + i, stream, width, heads);
        }
        b.addLayer("norm", new LayerNorm(), stream)
                .addLayer("cls", new FirstTimeStep(), "norm")
                .addLayer(
                        "out",
                        new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                                .activation(Activation.SOFTMAX)
                                .nOut(classes)
                                .build(),
                        "cls")
                .setOutputs("out");
        return b.build();
    }

    /** LayerNorm, attention, residual; LayerNorm, per-token MLP, residual. Returns the block's output vertex. */
    static String block(ComputationGraphConfiguration.GraphBuilder b, String name, String input, int width, int heads) {
        b.addLayer(name + "_norm1", new LayerNorm(), input)
                .addLayer(name + "_attn", new SelfAttention(width, heads, false), name + "_norm1")
                .addVertex(name + "_res1", new ElementWiseVertex(ElementWiseVertex.Op.Add), input, name + "_attn")
                .addLayer(name + "_norm2", new LayerNorm(), name + "_res1")
                .addLayer(
                        name + "_mlp1",
                        new TimeDistributed(new DenseLayer.Builder()
                                .nOut(2L * width)
                                .activation(Activation.GELU)
                                .build()),
                        name + "_norm2")
                .addLayer(
                        name + "_mlp2",
                        new TimeDistributed(new DenseLayer.Builder()
                                .nOut(width)
                                .activation(Activation.IDENTITY)
                                .build()),
                        name + "_mlp1")
                .addVertex(
                        name + "_res2",
                        new ElementWiseVertex(ElementWiseVertex.Op.Add),
                        name + "_res1",
                        name + "_mlp2");
        return name + "_res2";
    }
}
