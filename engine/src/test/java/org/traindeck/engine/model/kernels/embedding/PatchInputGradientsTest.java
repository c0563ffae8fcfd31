package org.traindeck.engine.model.kernels.embedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.kernels.LayerGradients.forwardBackward;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.model.kernels.InputGradients;

/**
 * The image patch kernel leaves out its input gradient where no parameter lies behind its input: the x-ray sample's
 * `context` reads the concat of two network inputs, whose gradient nobody reads. Where a trained layer lies behind a
 * parameter-free vertex, the gradient is kept. Either way the network's parameter gradients stay the same.
 */
class PatchInputGradientsTest {

    /**
     * Inputs front and side [1, 8, 8]: "context" patches their concat; "later" patches the concat of a 1×1 convolution
     * of front and side; their tokens added, pooled, an MSE head.
     */
    private static ComputationGraphConfiguration graph() {
        return new NeuralNetConfiguration.Builder()
                .seed(5)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("front", "side")
                .setInputTypes(InputType.convolutional(8, 8, 1), InputType.convolutional(8, 8, 1))
                .addVertex("views", new MergeVertex(), "front", "side")
                .addLayer("context", new PatchEmbeddingKernel(4, 6, false), "views")
                .addLayer("conv", new ConvolutionLayer.Builder(1, 1).nOut(1).build(), "front")
                .addVertex("mixed", new MergeVertex(), "conv", "side")
                .addLayer("later", new PatchEmbeddingKernel(4, 6, false), "mixed")
                .addVertex("sum", new ElementWiseVertex(ElementWiseVertex.Op.Add), "context", "later")
                .addLayer("pool", new GlobalPoolingLayer(PoolingType.AVG), "sum")
                .addLayer(
                        "out",
                        new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                                .nOut(3)
                                .activation(Activation.IDENTITY)
                                .build(),
                        "pool")
                .setOutputs("out")
                .build();
    }

    private static PatchEmbeddingKernel layerOf(ComputationGraphConfiguration conf, String name) {
        return (PatchEmbeddingKernel)
                ((LayerVertex) conf.getVertices().get(name)).getLayerConf().getLayer();
    }

    @Test
    void patchesOfAConcatOfInputsSkipTheirInputGradientAndPatchesBehindALayerKeepIt() {
        ComputationGraphConfiguration conf = graph();
        InputGradients.skipWhereUnused(conf);

        assertThat(layerOf(conf, "context").inputGradient()).isFalse();
        assertThat(layerOf(conf, "later").inputGradient()).isTrue();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(layerOf(back, "context").inputGradient()).isFalse();
        assertThat(back).isEqualTo(conf);
    }

    @Test
    void theNetworksGradientIsTheSameWithTheInputGradientLeftOut() {
        ComputationGraphConfiguration skipping = graph();
        InputGradients.skipWhereUnused(skipping);
        ComputationGraph k = new ComputationGraph(skipping);
        k.init();
        ComputationGraph full = new ComputationGraph(graph());
        full.init();
        full.setParams(k.params());
        INDArray[] x = {Nd4j.randn(DataType.FLOAT, 4, 1, 8, 8), Nd4j.randn(DataType.FLOAT, 4, 1, 8, 8)};
        INDArray[] y = {Nd4j.randn(DataType.FLOAT, 4, 3)};
        for (ComputationGraph net : new ComputationGraph[] {k, full}) {
            net.setInputs(x);
            net.setLabels(y);
            net.computeGradientAndScore();
        }

        assertThat(k.gradient().gradient().norm2Number().doubleValue()).isPositive();
        assertThat(k.gradient().gradient()).isEqualTo(full.gradient().gradient());
        assertThat(k.score()).isEqualTo(full.score());
    }

    @Test
    void aSkippingLayerReturnsZerosForItsInputAndTheSameParameterGradients() {
        PatchEmbeddingKernel keeping = new PatchEmbeddingKernel(2, 5, true);
        PatchEmbeddingKernel skipping = new PatchEmbeddingKernel(2, 5, true);
        keeping.setNIn(InputType.convolutional(4, 6, 3), true);
        skipping.setNIn(InputType.convolutional(4, 6, 3), true);
        skipping.setInputGradient(false);
        Layer k = instantiate(keeping);
        Layer s = instantiate(skipping);
        k.params().assign(Nd4j.randn(DataType.FLOAT, k.params().shape()));
        s.params().assign(k.params());
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 3, 4, 6);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        k.setInput(x, ws);
        INDArray eps = Nd4j.randn(DataType.FLOAT, k.activate(true, ws).shape());

        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, new INDArray[1]);
        Pair<Gradient, INDArray> none = forwardBackward(s, x, eps, new INDArray[1]);

        assertThat(g.getSecond().norm2Number().doubleValue()).isPositive();
        assertThat(none.getSecond().shape()).isEqualTo(x.shape());
        assertThat(none.getSecond().norm2Number().doubleValue()).isZero();
        assertThat(s.getGradientsViewArray()).isEqualTo(k.getGradientsViewArray());
    }
}
