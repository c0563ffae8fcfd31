package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.assertj.core.data.Offset;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Deconvolution3D;
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
import org.traindeck.engine.model.kernels.conv.Deconv3DKernel;

/**
 * The 3D transposed convolution kernel in a 3D autoencoder whose decoder up-samples by a 2×2×2 stride-2 deconv3d, on
 * the CPU unless a node opts out, DL4J's Deconvolution3D on the CUDA backend: the same parameters from the same seed,
 * the same loss and gradient, the same parameters after Adam steps, the choice no part of the model, and the JSON.
 */
class Deconv3DKernelPathsTest {

    private static final ModelInput VOLUMES = new ModelInput(
            InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 6, 6, 6, 1), Task.RECONSTRUCTION, 1);

    private static final String AUTOENCODER = """
            {"name": "enc", "type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"},
            {"name": "down", "type": "maxPool3d", "size": 2},
            {"name": "up", "type": "deconv3d", "filters": 4, "kernel": 2, "stride": 2, "activation": "relu"},
            {"name": "dec", "type": "deconv3d", "filters": 3, "kernel": 3, "bias": false},
            {"name": "soft", "type": "deconv3d", "filters": 3, "kernel": 3, "activation": "tanh"}""";

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
        INDArray x = Nd4j.rand(DataType.FLOAT, n, 1, 6, 6, 6);
        return new MultiDataSet(x, x.dup());
    }

    @Test
    void theTransposedConvolutionsRunOnTheKernelUnlessTheyOptOut(@TempDir Path dir) {
        ModelConfig model = GraphFixture.model(AUTOENCODER, dir);
        ComputationGraph own = ModelCompiler.build(model, VOLUMES, 1, KernelUse.OWN);
        assertThat(layerOf(own, "up")).isExactlyInstanceOf(Deconv3DKernel.class);
        assertThat(layerOf(own, "dec")).isExactlyInstanceOf(Deconv3DKernel.class);
        assertThat(layerOf(own, "soft")).as("tanh stays DL4J's").isExactlyInstanceOf(Deconvolution3D.class);
        ComputationGraph cuda = ModelCompiler.build(model, VOLUMES, 1, KernelUse.REFERENCE);
        assertThat(layerOf(cuda, "up")).isExactlyInstanceOf(Deconvolution3D.class);
        assertThat(layerOf(cuda, "dec")).isExactlyInstanceOf(Deconvolution3D.class);
        assertThat(own.params().equalsWithEps(cuda.params(), 0)).isTrue();
        ModelConfig optedOut = GraphFixture.model(
                AUTOENCODER.replace("\"type\": \"deconv3d\"", "\"type\": \"deconv3d\", \"implementation\": \"dl4j\""),
                dir);
        ComputationGraph dl4j = ModelCompiler.build(optedOut, VOLUMES, 1, KernelUse.OWN);
        assertThat(layerOf(dl4j, "up")).isExactlyInstanceOf(Deconvolution3D.class);
        assertThat(layerOf(dl4j, "dec")).isExactlyInstanceOf(Deconvolution3D.class);
        assertThat(KernelChoices.withoutChoices(optedOut)).isEqualTo(KernelChoices.withoutChoices(model));
        ComputationGraphConfiguration back =
                ComputationGraphConfiguration.fromJson(own.getConfiguration().toJson());
        assertThat(((LayerVertex) back.getVertices().get("up")).getLayerConf().getLayer())
                .isExactlyInstanceOf(Deconv3DKernel.class);
        assertThat(back.getVertices()).isEqualTo(own.getConfiguration().getVertices());
    }

    @Test
    void lossGradientAndAdamStepsMatchDl4jsLayer(@TempDir Path dir) {
        ModelConfig model = GraphFixture.model(AUTOENCODER, dir);
        ComputationGraph reference = ModelCompiler.build(model, VOLUMES, 3, KernelUse.REFERENCE);
        ComputationGraph own = ModelCompiler.build(model, VOLUMES, 3, KernelUse.OWN);
        MultiDataSet first = batch(3, 1);
        for (ComputationGraph net : new ComputationGraph[] {reference, own}) {
            net.setInputs(first.getFeatures());
            net.setLabels(first.getLabels());
            net.computeGradientAndScore();
        }
        assertThat(own.score()).isCloseTo(reference.score(), Offset.offset(1e-6 * reference.score()));
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
}
