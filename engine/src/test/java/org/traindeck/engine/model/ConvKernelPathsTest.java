package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.assertj.core.data.Offset;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.layers.Upsampling2D;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.kernels.KernelChoices;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.model.kernels.conv.ConcatKernel;
import org.traindeck.engine.model.kernels.conv.ConvKernel;
import org.traindeck.engine.model.kernels.conv.MaxPoolKernel;
import org.traindeck.engine.model.kernels.conv.SegmentationSoftmaxHead;
import org.traindeck.engine.model.kernels.conv.UpsampleKernel;

/**
 * The convolution, max pooling, upsampling and concat kernels in a U-Net on the CPU (unless a node opts out),
 * DL4J's layers on the CUDA backend: the same parameters from the same seed, the same loss and gradient, the same
 * parameters after Adam steps (with oneDNN's convolutions, as a run trains), and the choice is no part of the model.
 */
class ConvKernelPathsTest {

    private static final ModelInput IMAGES =
            new ModelInput(InputType.convolutional(8, 8, 1), Task.SEGMENTATION, 3, false);

    private static final String UNET = """
            {"name": "enc", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"},
            {"name": "down", "type": "maxPool2d"},
            {"name": "bottom", "type": "conv2d", "filters": 6, "kernel": 3, "activation": "tanh"},
            {"name": "up", "type": "upsample2d"},
            {"name": "skip", "type": "concat", "inputs": ["up", "enc"]},
            {"name": "dec", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"}""";

    private static void assertClose(INDArray actual, INDArray expected, double tolerance, String what) {
        double diff = actual.castTo(DataType.DOUBLE)
                .sub(expected.castTo(DataType.DOUBLE))
                .norm2Number()
                .doubleValue();
        assertThat(diff / expected.norm2Number().doubleValue())
                .as(what + ": |actual − expected| / |expected|")
                .isLessThan(tolerance);
    }

    private static Object layerOf(ComputationGraph net, String name) {
        GraphVertex v = net.getConfiguration().getVertices().get(name);
        return v instanceof LayerVertex l ? l.getLayerConf().getLayer() : v;
    }

    private static MultiDataSet batch(int n, long seed) {
        Nd4j.getRandom().setSeed(seed);
        INDArray x = Nd4j.randn(DataType.FLOAT, n, 1, 8, 8);
        INDArray y = Nd4j.zeros(DataType.FLOAT, n, 3, 8, 8);
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < 64; p++) {
                y.putScalar(new int[] {i, (int) ((i * 5 + p * 7 + seed) % 3), p / 8, p % 8}, 1f);
            }
        }
        return new MultiDataSet(x, y);
    }

    private static ComputationGraph built(ModelConfig model, KernelUse kernels) {
        ComputationGraph net = ModelCompiler.build(model, IMAGES, 3, kernels);
        OneDnnHelpers.install(net);
        return net;
    }

    @Test
    void theUNetsPoolingUpsamplingAndConcatRunOnTheKernelsUnlessTheyOptOut(@TempDir Path dir) {
        ModelConfig model = GraphFixture.model(UNET, dir);
        ComputationGraph own = ModelCompiler.build(model, IMAGES, 1, KernelUse.OWN);
        assertThat(layerOf(own, "down")).isExactlyInstanceOf(MaxPoolKernel.class);
        assertThat(layerOf(own, "up")).isExactlyInstanceOf(UpsampleKernel.class);
        assertThat(layerOf(own, "skip")).isExactlyInstanceOf(ConcatKernel.class);
        assertThat(layerOf(own, "enc")).isExactlyInstanceOf(ConvKernel.class);
        assertThat(layerOf(own, "dec")).isExactlyInstanceOf(ConvKernel.class);
        assertThat(((ConvKernel) layerOf(own, "enc")).inputGradient())
                .as("the network's input needs no gradient")
                .isFalse();
        assertThat(((ConvKernel) layerOf(own, "dec")).inputGradient()).isTrue();
        assertThat(layerOf(own, "bottom")).as("tanh stays DL4J's").isExactlyInstanceOf(ConvolutionLayer.class);
        assertThat(layerOf(own, "output"))
                .as("the per-pixel softmax")
                .isExactlyInstanceOf(SegmentationSoftmaxHead.class);
        ComputationGraph cuda = ModelCompiler.build(model, IMAGES, 1, KernelUse.REFERENCE);
        assertThat(layerOf(cuda, "down")).isExactlyInstanceOf(SubsamplingLayer.class);
        assertThat(layerOf(cuda, "up")).isExactlyInstanceOf(Upsampling2D.class);
        assertThat(layerOf(cuda, "skip")).isExactlyInstanceOf(MergeVertex.class);
        assertThat(layerOf(cuda, "enc")).isExactlyInstanceOf(ConvolutionLayer.class);
        assertThat(layerOf(cuda, "output")).isExactlyInstanceOf(CnnLossLayer.class);
        assertThat(own.params().equalsWithEps(cuda.params(), 0)).isTrue();
        ModelConfig optedOut = GraphFixture.model(
                UNET.replace("\"maxPool2d\"", "\"maxPool2d\", \"kernel\": \"dl4j\"")
                        .replace("\"upsample2d\"", "\"upsample2d\", \"kernel\": \"dl4j\"")
                        .replace("\"type\": \"concat\"", "\"type\": \"concat\", \"kernel\": \"dl4j\"")
                        .replace("\"type\": \"conv2d\"", "\"type\": \"conv2d\", \"implementation\": \"dl4j\""),
                dir);
        ComputationGraph dl4j = ModelCompiler.build(optedOut, IMAGES, 1, KernelUse.OWN);
        assertThat(layerOf(dl4j, "down")).isExactlyInstanceOf(SubsamplingLayer.class);
        assertThat(layerOf(dl4j, "up")).isExactlyInstanceOf(Upsampling2D.class);
        assertThat(layerOf(dl4j, "skip")).isExactlyInstanceOf(MergeVertex.class);
        assertThat(layerOf(dl4j, "enc")).isExactlyInstanceOf(ConvolutionLayer.class);
        assertThat(KernelChoices.withoutChoices(optedOut)).isEqualTo(KernelChoices.withoutChoices(model));
    }

    @Test
    void lossGradientAndAdamStepsMatchDl4jsLayers(@TempDir Path dir) {
        ModelConfig model = GraphFixture.model(UNET, dir);
        ComputationGraph reference = built(model, KernelUse.REFERENCE);
        ComputationGraph own = built(model, KernelUse.OWN);
        MultiDataSet first = batch(5, 1);
        for (ComputationGraph net : new ComputationGraph[] {reference, own}) {
            net.setInputs(first.getFeatures());
            net.setLabels(first.getLabels());
            net.computeGradientAndScore();
        }
        // the kernel sums the per-pixel cross-entropy in double, DL4J's in float
        assertThat(own.score()).isCloseTo(reference.score(), Offset.offset(1e-6 * reference.score()));
        assertClose(own.getGradientsViewArray(), reference.getGradientsViewArray(), 1e-5, "gradient");
        for (int step = 0; step < 6; step++) {
            MultiDataSet b = batch(6, step + 10);
            reference.fit(b);
            own.fit(b);
        }
        assertClose(own.params(), reference.params(), 1e-4, "parameters after 6 Adam steps");
        INDArray x = batch(3, 99).getFeatures(0);
        assertClose(own.outputSingle(x), reference.outputSingle(x), 1e-4, "inference");
    }

    @Test
    void theLossTheGraphReadsAfterItsBackwardPassIsTheLossOfAForwardPassAlone(@TempDir Path dir) {
        ComputationGraph own = built(GraphFixture.model(UNET, dir), KernelUse.OWN);
        for (long seed : new long[] {3, 4}) {
            MultiDataSet b = batch(4, seed);
            own.setInputs(b.getFeatures());
            own.setLabels(b.getLabels());
            own.computeGradientAndScore();
            // the segmentation head sums the loss in its backward pass and hands that sum to the graph
            assertThat(own.score()).isEqualTo(own.score(b, true));
        }
    }

    @Test
    void theKernelsConfigurationSurvivesJson(@TempDir Path dir) {
        ComputationGraphConfiguration conf =
                built(GraphFixture.model(UNET, dir), KernelUse.OWN).getConfiguration();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back.getVertices().get("skip")).isExactlyInstanceOf(ConcatKernel.class);
        assertThat(((LayerVertex) back.getVertices().get("down")).getLayerConf().getLayer())
                .isExactlyInstanceOf(MaxPoolKernel.class);
        assertThat(((LayerVertex) back.getVertices().get("enc")).getLayerConf().getLayer())
                .isExactlyInstanceOf(ConvKernel.class);
        assertThat(back.getVertices()).isEqualTo(conf.getVertices());
    }
}
