package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.assertj.core.data.Offset;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
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
import org.traindeck.engine.model.kernels.conv.Deconv2DKernel;

/**
 * The transposed convolution kernel in a U-Net whose up-sampling is a 2×2 stride-2 deconv2d (as PyTorch U-Nets use
 * ConvTranspose2d) on the CPU unless a node opts out, DL4J's Deconvolution2D on the CUDA backend: the same parameters
 * from the same seed, the same loss and gradient, the same parameters after Adam steps, and the choice is no part of
 * the model.
 */
class Deconv2DKernelPathsTest {

    private static final ModelInput IMAGES =
            new ModelInput(InputType.convolutional(8, 8, 1), Task.SEGMENTATION, 3, false);

    private static final String UNET = """
            {"name": "enc", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"},
            {"name": "down", "type": "maxPool2d"},
            {"name": "bottom", "type": "conv2d", "filters": 6, "kernel": 3, "activation": "relu"},
            {"name": "up", "type": "deconv2d", "filters": 4, "kernel": 2, "stride": 2},
            {"name": "skip", "type": "concat", "inputs": ["up", "enc"]},
            {"name": "dec", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"},
            {"name": "refine", "type": "deconv2d", "filters": 4, "kernel": 3, "activation": "relu"},
            {"name": "smooth", "type": "deconv2d", "filters": 4, "kernel": 3, "activation": "tanh"}""";

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
    void theTransposedConvolutionsRunOnTheKernelUnlessTheyOptOut(@TempDir Path dir) {
        ModelConfig model = GraphFixture.model(UNET, dir);
        ComputationGraph own = built(model, KernelUse.OWN);
        assertThat(layerOf(own, "up")).isExactlyInstanceOf(Deconv2DKernel.class);
        assertThat(layerOf(own, "refine")).isExactlyInstanceOf(Deconv2DKernel.class);
        assertThat(layerOf(own, "smooth")).as("tanh stays DL4J's").isExactlyInstanceOf(Deconvolution2D.class);
        ComputationGraph cuda = built(model, KernelUse.REFERENCE);
        assertThat(layerOf(cuda, "up")).isExactlyInstanceOf(Deconvolution2D.class);
        assertThat(layerOf(cuda, "refine")).isExactlyInstanceOf(Deconvolution2D.class);
        assertThat(own.params().equalsWithEps(cuda.params(), 0)).isTrue();
        ModelConfig optedOut = GraphFixture.model(
                UNET.replace("\"type\": \"deconv2d\"", "\"type\": \"deconv2d\", \"implementation\": \"dl4j\""), dir);
        ComputationGraph dl4j = built(optedOut, KernelUse.OWN);
        assertThat(layerOf(dl4j, "up")).isExactlyInstanceOf(Deconvolution2D.class);
        assertThat(layerOf(dl4j, "refine")).isExactlyInstanceOf(Deconvolution2D.class);
        assertThat(dl4j.params().equalsWithEps(own.params(), 0)).isTrue();
        assertThat(KernelChoices.withoutChoices(optedOut)).isEqualTo(KernelChoices.withoutChoices(model));
    }

    @Test
    void lossGradientAndAdamStepsMatchDl4jsLayer(@TempDir Path dir) {
        ModelConfig model = GraphFixture.model(UNET, dir);
        ComputationGraph reference = built(model, KernelUse.REFERENCE);
        ComputationGraph own = built(model, KernelUse.OWN);
        MultiDataSet first = batch(3, 1);
        for (ComputationGraph net : new ComputationGraph[] {reference, own}) {
            net.setInputs(first.getFeatures());
            net.setLabels(first.getLabels());
            net.computeGradientAndScore();
        }
        // relative: the kernel runs oneDNN's primitive for the 2×2 stride-2 window where DL4J's layer runs libnd4j's
        // generic same-mode path, so the sums of a loss of ~74 round differently in float
        assertThat(own.score()).isCloseTo(reference.score(), Offset.offset(1e-6 * Math.abs(reference.score())));
        assertClose(own.getGradientsViewArray(), reference.getGradientsViewArray(), 1e-5, "gradient");
        for (int step = 0; step < 6; step++) {
            MultiDataSet b = batch(4, step + 10);
            reference.fit(b);
            own.fit(b);
        }
        assertClose(own.params(), reference.params(), 1e-4, "parameters after 6 Adam steps");
        INDArray x = batch(2, 99).getFeatures(0);
        assertClose(own.outputSingle(x), reference.outputSingle(x), 1e-4, "inference");
    }

    @Test
    void theKernelsConfigurationSurvivesJson(@TempDir Path dir) {
        ComputationGraphConfiguration conf =
                built(GraphFixture.model(UNET, dir), KernelUse.OWN).getConfiguration();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(((LayerVertex) back.getVertices().get("up")).getLayerConf().getLayer())
                .isExactlyInstanceOf(Deconv2DKernel.class);
        assertThat(back.getVertices()).isEqualTo(conf.getVertices());
    }
}
