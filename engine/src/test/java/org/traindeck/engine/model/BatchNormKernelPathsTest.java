package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.kernels.KernelChoices;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.model.kernels.conv.BatchNormKernel;
import org.traindeck.engine.model.kernels.conv.ReluKernel;
import org.traindeck.engine.model.kernels.conv.SyncBatchNorm;
import org.traindeck.engine.model.kernels.conv.SyncBatchNormKernel;

/**
 * Where the fused batch norm and the relu kernel are used: batchNorm nodes and the lenet and resnet shorthands on the CPU, unless a node
 * says {@code "kernel": "dl4j"}; DL4J's layer on the CUDA backend; synchronized BatchNorm on the kernel too; the same
 * parameters from the same seed either way, and the choice is no part of the model's fingerprint.
 */
class BatchNormKernelPathsTest {

    private static final ModelInput IMAGES =
            new ModelInput(InputType.convolutional(8, 8, 1), Task.CLASSIFICATION, 10, false);

    private static Layer layerOf(ComputationGraph net, String name) {
        return ((LayerVertex) net.getConfiguration().getVertices().get(name))
                .getLayerConf()
                .getLayer();
    }

    private static ModelConfig.Graph graph(Path dir) {
        return (ModelConfig.Graph) GraphFixture.model("""
                {"name": "conv", "type": "conv2d", "filters": 4, "kernel": 3},
                {"name": "own", "type": "batchNorm"},
                {"name": "theirs", "type": "batchNorm", "kernel": "dl4j"},
                {"name": "relu", "type": "activation", "function": "relu"},
                {"name": "tanh", "type": "activation", "function": "tanh"},
                {"name": "dl4jRelu", "type": "activation", "function": "relu", "kernel": "dl4j"},
                {"name": "gap", "type": "globalPool"}""", dir);
    }

    @Test
    void batchNormNodesRunOnTheKernelOnTheCpuUnlessTheyOptOut(@TempDir Path dir) {
        ModelConfig.Graph model = graph(dir);
        ComputationGraph own = ModelCompiler.build(model, IMAGES, 1, KernelUse.OWN);
        assertThat(layerOf(own, "own")).isExactlyInstanceOf(BatchNormKernel.class);
        assertThat(layerOf(own, "theirs")).isExactlyInstanceOf(BatchNormalization.class);
        assertThat(layerOf(own, "relu")).isExactlyInstanceOf(ReluKernel.class);
        assertThat(layerOf(own, "tanh")).isExactlyInstanceOf(ActivationLayer.class);
        assertThat(layerOf(own, "dl4jRelu")).isExactlyInstanceOf(ActivationLayer.class);
        ComputationGraph cuda = ModelCompiler.build(model, IMAGES, 1, KernelUse.REFERENCE);
        assertThat(layerOf(cuda, "own")).isExactlyInstanceOf(BatchNormalization.class);
        assertThat(layerOf(cuda, "relu")).isExactlyInstanceOf(ActivationLayer.class);
        assertThat(own.paramTable().keySet())
                .containsExactlyElementsOf(cuda.paramTable().keySet());
        assertThat(own.params().equalsWithEps(cuda.params(), 0))
                .as("same parameters from the same seed")
                .isTrue();
        ModelConfig.Graph plain = (ModelConfig.Graph) KernelChoices.withoutChoices(model);
        assertThat(plain.layers().get(2).options()).doesNotContainKey("kernel");
    }

    @Test
    void synchronizedBatchNormStaysOnTheKernel(@TempDir Path dir) {
        ModelConfig.Graph model = graph(dir);
        ComputationGraph synced = ModelCompiler.build(model, IMAGES, 1, KernelUse.OWN, true);
        assertThat(layerOf(synced, "own")).isExactlyInstanceOf(SyncBatchNormKernel.class);
        assertThat(layerOf(synced, "theirs")).isExactlyInstanceOf(SyncBatchNorm.class);
        assertThat(SyncBatchNorms.in(synced)).containsExactlyInAnyOrder("own", "theirs");
    }

    @Test
    void theClassicShorthandsBatchNormsRunOnTheKernel() {
        ModelConfig resnet = new ModelConfig.ResNet(1, 4, ModelConfig.Activation.RELU);
        ComputationGraph own = ModelCompiler.build(resnet, IMAGES, 1, KernelUse.OWN);
        for (String bn : List.of("stem_bn", "block0_bn1", "block0_bn2")) {
            assertThat(layerOf(own, bn)).as(bn).isExactlyInstanceOf(BatchNormKernel.class);
        }
        assertThat(layerOf(own, "stem_bn_act")).isExactlyInstanceOf(ReluKernel.class);
        assertThat(layerOf(own, "block0_out")).isExactlyInstanceOf(ReluKernel.class);
        ComputationGraph reference = ModelCompiler.build(resnet, IMAGES, 1, KernelUse.REFERENCE);
        assertThat(layerOf(reference, "stem_bn")).isExactlyInstanceOf(BatchNormalization.class);
        assertThat(own.params().equalsWithEps(reference.params(), 0)).isTrue();
        ModelConfig lenet = new ModelConfig.LeNet(List.of(4, 8), 3, 16, ModelConfig.Activation.RELU, 0, true);
        assertThat(layerOf(ModelCompiler.build(lenet, IMAGES, 1, KernelUse.OWN), "bn0"))
                .isExactlyInstanceOf(BatchNormKernel.class);
    }
}
