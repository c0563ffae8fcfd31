package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.assertj.core.data.Offset;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Cnn3DLossLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Subsampling3DLayer;
import org.deeplearning4j.nn.conf.layers.Upsampling3D;
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
import org.traindeck.engine.model.kernels.conv.Conv3DKernel;
import org.traindeck.engine.model.kernels.conv.MaxPool3DKernel;
import org.traindeck.engine.model.kernels.conv.Upsample3DKernel;
import org.traindeck.engine.model.kernels.conv.VolumeMseHead;

/**
 * The conv3d, 3D max pooling and 3D upsampling kernels in a 3D autoencoder (the volumes-autoencoder sample's layers,
 * small) on the CPU unless a node opts out, DL4J's layers on the CUDA backend: the same parameters from the same seed, the same loss and gradient, the same
 * parameters after Adam steps, and the choice is no part of the model.
 */
class Conv3DKernelPathsTest {

    private static final ModelInput VOLUMES = new ModelInput(
            InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 6, 6, 6, 1), Task.RECONSTRUCTION, 1);

    private static final String AUTOENCODER = """
            {"name": "enc", "type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"},
            {"name": "down", "type": "maxPool3d", "size": 2},
            {"name": "code", "type": "conv3d", "filters": 3, "kernel": 3, "activation": "tanh"},
            {"name": "up", "type": "upsample3d", "size": 2},
            {"name": "dec", "type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"}""";

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
    void theConvolutionsPoolingAndUpsamplingRunOnTheKernelsUnlessTheyOptOut(@TempDir Path dir) {
        ModelConfig model = GraphFixture.model(AUTOENCODER, dir);
        ComputationGraph own = ModelCompiler.build(model, VOLUMES, 1, KernelUse.OWN);
        assertThat(layerOf(own, "down")).isExactlyInstanceOf(MaxPool3DKernel.class);
        assertThat(layerOf(own, "up")).isExactlyInstanceOf(Upsample3DKernel.class);
        assertThat(layerOf(own, "enc")).isExactlyInstanceOf(Conv3DKernel.class);
        assertThat(layerOf(own, "dec")).isExactlyInstanceOf(Conv3DKernel.class);
        assertThat(((Conv3DKernel) layerOf(own, "enc")).inputGradient())
                .as("the network's input needs no gradient")
                .isFalse();
        assertThat(((Conv3DKernel) layerOf(own, "dec")).inputGradient()).isTrue();
        assertThat(layerOf(own, "head")).as("the 1×1×1 projection").isExactlyInstanceOf(Conv3DKernel.class);
        assertThat(layerOf(own, "output")).as("the MSE").isExactlyInstanceOf(VolumeMseHead.class);
        assertThat(layerOf(own, "code")).as("tanh stays DL4J's").isExactlyInstanceOf(Convolution3D.class);
        ComputationGraph cuda = ModelCompiler.build(model, VOLUMES, 1, KernelUse.REFERENCE);
        assertThat(layerOf(cuda, "down")).isExactlyInstanceOf(Subsampling3DLayer.class);
        assertThat(layerOf(cuda, "up")).isExactlyInstanceOf(Upsampling3D.class);
        assertThat(layerOf(cuda, "enc")).isExactlyInstanceOf(Convolution3D.class);
        assertThat(layerOf(cuda, "head")).isExactlyInstanceOf(Convolution3D.class);
        assertThat(layerOf(cuda, "output")).isExactlyInstanceOf(Cnn3DLossLayer.class);
        assertThat(layerOf(cuda, "dec")).isExactlyInstanceOf(Convolution3D.class);
        assertThat(own.params().equalsWithEps(cuda.params(), 0)).isTrue();
        ModelConfig optedOut = GraphFixture.model(
                AUTOENCODER
                        .replace("\"maxPool3d\"", "\"maxPool3d\", \"kernel\": \"dl4j\"")
                        .replace("\"upsample3d\"", "\"upsample3d\", \"kernel\": \"dl4j\"")
                        .replace("\"type\": \"conv3d\"", "\"type\": \"conv3d\", \"implementation\": \"dl4j\""),
                dir);
        ComputationGraph dl4j = ModelCompiler.build(optedOut, VOLUMES, 1, KernelUse.OWN);
        assertThat(layerOf(dl4j, "down")).isExactlyInstanceOf(Subsampling3DLayer.class);
        assertThat(layerOf(dl4j, "up")).isExactlyInstanceOf(Upsampling3D.class);
        assertThat(layerOf(dl4j, "enc")).isExactlyInstanceOf(Convolution3D.class);
        assertThat(layerOf(dl4j, "dec")).isExactlyInstanceOf(Convolution3D.class);
        assertThat(KernelChoices.withoutChoices(optedOut)).isEqualTo(KernelChoices.withoutChoices(model));
    }

    @Test
    void lossGradientAndAdamStepsMatchDl4jsLayers(@TempDir Path dir) {
        ModelConfig model = GraphFixture.model(AUTOENCODER, dir);
        ComputationGraph reference = ModelCompiler.build(model, VOLUMES, 3, KernelUse.REFERENCE);
        ComputationGraph own = ModelCompiler.build(model, VOLUMES, 3, KernelUse.OWN);
        MultiDataSet first = batch(3, 1);
        for (ComputationGraph net : new ComputationGraph[] {reference, own}) {
            net.setInputs(first.getFeatures());
            net.setLabels(first.getLabels());
            net.computeGradientAndScore();
        }
        // the kernel head sums the squared errors in double, DL4J's in float: the same loss to about 1e-7
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

    @Test
    void theKernelsConfigurationSurvivesJson(@TempDir Path dir) {
        ComputationGraphConfiguration conf = ModelCompiler.build(
                        GraphFixture.model(AUTOENCODER, dir), VOLUMES, 1, KernelUse.OWN)
                .getConfiguration();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(((LayerVertex) back.getVertices().get("enc")).getLayerConf().getLayer())
                .isExactlyInstanceOf(Conv3DKernel.class);
        assertThat(((LayerVertex) back.getVertices().get("down")).getLayerConf().getLayer())
                .isExactlyInstanceOf(MaxPool3DKernel.class);
        assertThat(back.getVertices()).isEqualTo(conf.getVertices());
    }
}
