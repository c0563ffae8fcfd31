package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.TimeDistributed;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.kernels.KernelChoices;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.model.kernels.dense.DenseKernel;
import org.traindeck.engine.model.kernels.dense.SoftmaxOutputHead;
import org.traindeck.engine.model.kernels.transformer.LayerNormKernel;
import org.traindeck.engine.train.resume.ResumePoint;
import org.traindeck.engine.train.step.Optimizers;

/**
 * TrainDeck's kernels and the layers they replace (DL4J's DenseLayer, the SameDiff LayerNorm) are interchangeable:
 * the same training on real data, the CUDA path builds the reference layers, and a checkpoint of the reference layers
 * (every checkpoint written before the kernels) loads into the kernels and trains on identically.
 */
class KernelPathsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ModelInput DIGITS = new ModelInput(InputType.feedForward(64), Task.CLASSIFICATION, 10);

    /** The digits MLP sample (dropout, Adam, warmup-cosine, clipping), shortened to {@code epochs}. */
    private static RunConfig digitsSample(Path dir, String name, int epochs, String kernel) throws Exception {
        ObjectNode c = (ObjectNode)
                JSON.readTree(Files.readString(TestPaths.sampleConfigs().resolve("digits-mlp.json")));
        c.put("name", name);
        c.put("outputDir", dir.resolve("runs").toString());
        ((ObjectNode) c.path("data").path("train"))
                .put(
                        "path",
                        TestPaths.repoRoot()
                                .resolve("data/digits/digits.csv.gz")
                                .toString());
        ((ObjectNode) c.path("stages").get(0)).put("epochs", epochs);
        if (kernel != null) {
            ((ObjectNode) c.path("model")).put("kernel", kernel);
        }
        return ConfigParser.parse(JSON.writeValueAsString(c), dir).orThrow();
    }

    @Test
    void theDigitsSampleTrainsToTheSameLossesWithTheKernelAndWithDenseLayer(@TempDir Path dir) throws Exception {
        RunResult kernel = TrainingRun.open(RunRequest.of(digitsSample(dir, "kernel", 2, null)))
                .runHere();
        RunResult dl4j = TrainingRun.open(RunRequest.of(digitsSample(dir, "dl4j", 2, "dl4j")))
                .runHere();

        assertThat(kernel.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(dl4j.status()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = SynchronousEquivalenceTest.losses(dl4j.runDir());
        List<Double> b = SynchronousEquivalenceTest.losses(kernel.runDir());
        assertThat(a).hasSizeGreaterThanOrEqualTo(80).hasSameSizeAs(b);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i)))
                    .as("relative loss difference at step %d", i + 1)
                    .isLessThan(1e-4);
        }
    }

    @Test
    void theCudaPathAndTheOptOutBuildDl4jLayersAndTheCpuPathTheKernel() {
        ModelConfig.Mlp mlp = new ModelConfig.Mlp(List.of(16, 8), ModelConfig.Activation.RELU, 0.1);
        assertThat(denseLayers(ModelCompiler.build(mlp, DIGITS, 1, KernelUse.OWN)))
                .allMatch(l -> l instanceof DenseKernel)
                .hasSize(2);
        assertThat(denseLayers(ModelCompiler.build(mlp, DIGITS, 1, KernelUse.REFERENCE)))
                .allMatch(l -> l instanceof DenseLayer)
                .hasSize(2);
        List<Layer> kernels = denseLayers(ModelCompiler.build(mlp, DIGITS, 1, KernelUse.OWN));
        assertThat(((DenseKernel) kernels.get(0)).inputGradient())
                .as("the first layer reads the data: no input gradient")
                .isFalse();
        assertThat(((DenseKernel) kernels.get(1)).inputGradient()).isTrue();
        ModelConfig.Mlp optOut = new ModelConfig.Mlp(List.of(16, 8), ModelConfig.Activation.RELU, 0.1, "dl4j");
        assertThat(denseLayers(ModelCompiler.build(optOut, DIGITS, 1, KernelUse.OWN)))
                .allMatch(l -> l instanceof DenseLayer);

        ModelInput sequence = new ModelInput(InputType.recurrent(5, 6), Task.CLASSIFICATION, 2);
        ModelConfig.Graph graph = new ModelConfig.Graph(
                List.of(
                        new LayerSpec("own", "dense", null, Map.of("units", 4, "activation", "gelu", "bias", true)),
                        new LayerSpec(
                                "theirs",
                                "dense",
                                null,
                                Map.of("units", 4, "activation", "tanh", "bias", true, "kernel", "dl4j")),
                        new LayerSpec("last", "lstm", null, Map.of("units", 2, "returnSequences", false))),
                new ModelConfig.Head("auto", "auto"));
        ComputationGraph own = ModelCompiler.build(graph, sequence, 1, KernelUse.OWN);
        assertThat(layerOf(own, "own")).isInstanceOf(DenseKernel.class);
        assertThat(layerOf(own, "theirs")).isInstanceOf(TimeDistributed.class);
        ComputationGraph cuda = ModelCompiler.build(graph, sequence, 1, KernelUse.REFERENCE);
        assertThat(layerOf(cuda, "own")).isInstanceOf(TimeDistributed.class);
        assertThat(own.params().equalsWithEps(cuda.params(), 0))
                .as("same parameters from the same seed")
                .isTrue();
    }

    @Test
    void theHeadOfTheClassicShorthandsIsTheKernelUnlessTheyOptOut() {
        ModelConfig.Mlp mlp = new ModelConfig.Mlp(List.of(16, 8), ModelConfig.Activation.RELU, 0.1);
        assertThat(layerOf(ModelCompiler.build(mlp, DIGITS, 1, KernelUse.OWN), "output"))
                .isInstanceOf(SoftmaxOutputHead.class);
        assertThat(layerOf(ModelCompiler.build(mlp, DIGITS, 1, KernelUse.REFERENCE), "output"))
                .isExactlyInstanceOf(OutputLayer.class);
        ModelConfig.Mlp optOut = new ModelConfig.Mlp(List.of(16, 8), ModelConfig.Activation.RELU, 0.1, "dl4j");
        assertThat(layerOf(ModelCompiler.build(optOut, DIGITS, 1, KernelUse.OWN), "output"))
                .isExactlyInstanceOf(OutputLayer.class);
        ModelInput regression = new ModelInput(InputType.feedForward(64), Task.REGRESSION, 2);
        assertThat(layerOf(ModelCompiler.build(mlp, regression, 1, KernelUse.OWN), "output"))
                .as("mean squared error is DL4J's")
                .isExactlyInstanceOf(OutputLayer.class);
    }

    @Test
    void theLenetTrainsTheSameOnBothPathsFromTheSameParameters() {
        ModelConfig.LeNet lenet = new ModelConfig.LeNet(List.of(4, 6), 3, 16, ModelConfig.Activation.RELU, 0.2, false);
        ModelInput images = new ModelInput(InputType.convolutional(12, 12, 1), Task.CLASSIFICATION, 5);
        ComputationGraph own = ModelCompiler.build(lenet, images, 4, KernelUse.OWN);
        ComputationGraph reference = ModelCompiler.build(lenet, images, 4, KernelUse.REFERENCE);
        assertThat(layerOf(own, "dense")).isInstanceOf(DenseKernel.class);
        assertThat(layerOf(own, "output")).isInstanceOf(SoftmaxOutputHead.class);
        assertThat(layerOf(reference, "dense")).isExactlyInstanceOf(DenseLayer.class);
        assertThat(layerOf(reference, "output")).isExactlyInstanceOf(OutputLayer.class);
        // the same parameters in the same places: a checkpoint of either loads into the other
        assertThat(own.params().equalsWithEps(reference.params(), 0)).isTrue();
        for (ComputationGraph net : List.of(own, reference)) {
            Optimizers.install(
                    net, new OptimizerConfig("adam", 1e-2, 0, 0.9, 0.999, 1e-8, 0), new FixedSchedule(1e-2), false);
        }
        INDArray x = Nd4j.rand(DataType.FLOAT, 10, 1, 12, 12);
        INDArray y = Nd4j.zeros(DataType.FLOAT, 10, 5);
        for (int i = 0; i < 10; i++) {
            y.putScalar(i, i % 5, 1);
        }
        assertRelativelyClose(own.outputSingle(x), reference.outputSingle(x), 1e-5);
        for (int step = 0; step < 6; step++) {
            Nd4j.getRandom().setSeed(200 + step); // the same dropout masks on both
            reference.fit(new MultiDataSet(x, y));
            Nd4j.getRandom().setSeed(200 + step);
            own.fit(new MultiDataSet(x, y));
            assertThat(Math.abs(own.score() - reference.score()) / reference.score())
                    .as("loss at step %d", step)
                    .isLessThan(1e-5);
        }
        assertRelativelyClose(own.params(), reference.params(), 1e-5);
    }

    @Test
    void aGraphWithDenseAndLayerNormTrainsTheSameOnBothPaths() {
        ModelInput sequence = new ModelInput(InputType.recurrent(6, 7), Task.CLASSIFICATION, 3);
        ModelConfig.Graph graph = new ModelConfig.Graph(
                List.of(
                        new LayerSpec("up", "dense", null, Map.of("units", 12, "activation", "gelu", "bias", true)),
                        new LayerSpec("norm", "layerNorm", null, Map.of("epsilon", 1e-5)),
                        new LayerSpec(
                                "down", "dense", null, Map.of("units", 5, "activation", "identity", "bias", true)),
                        new LayerSpec("norm2", "layerNorm", null, Map.of("epsilon", 1e-5, "kernel", "dl4j")),
                        new LayerSpec("last", "lstm", null, Map.of("units", 4, "returnSequences", false))),
                new ModelConfig.Head("auto", "auto"));
        ComputationGraph own = ModelCompiler.build(graph, sequence, 3, KernelUse.OWN);
        ComputationGraph reference = ModelCompiler.build(graph, sequence, 3, KernelUse.REFERENCE);
        assertThat(layerOf(own, "norm")).isInstanceOf(LayerNormKernel.class);
        assertThat(layerOf(own, "norm2")).isNotInstanceOf(LayerNormKernel.class);
        assertThat(layerOf(reference, "norm")).isNotInstanceOf(LayerNormKernel.class);
        assertThat(own.params().equalsWithEps(reference.params(), 0)).isTrue();
        INDArray x = Nd4j.randn(DataType.FLOAT, 8, 6, 7);
        INDArray y = Nd4j.zeros(DataType.FLOAT, 8, 3);
        for (int i = 0; i < 8; i++) {
            y.putScalar(i, i % 3, 1);
        }
        for (int step = 0; step < 8; step++) {
            reference.fit(new MultiDataSet(x, y));
            own.fit(new MultiDataSet(x, y));
            assertThat(Math.abs(own.score() - reference.score()) / reference.score())
                    .as("loss at step %d", step)
                    .isLessThan(1e-5);
        }
        assertRelativelyClose(own.params(), reference.params(), 1e-5);
    }

    private static Layer layerOf(ComputationGraph net, String node) {
        return ((LayerVertex) net.getConfiguration().getVertices().get(node))
                .getLayerConf()
                .getLayer();
    }

    private static List<Layer> denseLayers(ComputationGraph net) {
        return Arrays.stream(net.getLayers())
                .map(l -> l.conf().getLayer())
                .filter(l -> l.getLayerName().startsWith("dense"))
                .toList();
    }

    @Test
    void thisCpuBuildUsesTheKernelsUnlessANodeOptsOut() {
        assertThat(KernelUse.forCurrentBackend()).isEqualTo(KernelUse.OWN);
        assertThat(KernelUse.OWN.kernelFor(null)).isTrue();
        assertThat(KernelUse.OWN.kernelFor("own")).isTrue();
        assertThat(KernelUse.OWN.kernelFor("dl4j")).isFalse();
        assertThat(KernelUse.REFERENCE.kernelFor("own")).isFalse();
    }

    @Test
    void theKernelChoiceIsNoPartOfTheModelFingerprint() {
        ModelConfig.Mlp dl4j = new ModelConfig.Mlp(List.of(64, 32), ModelConfig.Activation.RELU, 0.1, "dl4j");
        assertThat(ConfigWriter.modelJson(KernelChoices.withoutChoices(dl4j)))
                .isEqualTo("{\"type\":\"mlp\",\"activation\":\"relu\",\"hidden\":[64,32],\"dropout\":0.1}");
        ModelConfig.Graph graph = new ModelConfig.Graph(
                List.of(
                        new LayerSpec("d", "dense", null, Map.of("units", 4, "kernel", "dl4j")),
                        new LayerSpec("c", "conv1d", null, Map.of("filters", 4, "kernel", 3))),
                new ModelConfig.Head("auto", "auto"));
        assertThat(ConfigWriter.modelJson(KernelChoices.withoutChoices(graph)))
                .doesNotContain("dl4j")
                .contains("\"kernel\":3");
    }

    @Test
    void aCheckpointOfDenseLayersLoadsIntoTheKernelsAndTrainsOnAlike(@TempDir Path dir) throws Exception {
        RunConfig config = digitsSample(dir, "old", 1, "dl4j");
        RunResult old = TrainingRun.open(RunRequest.of(config)).runHere();
        CheckpointFiles.Contents contents = CheckpointFiles.read(old.lastCheckpoint());

        ComputationGraph reference = resumed(config, contents, KernelUse.REFERENCE);
        ComputationGraph kernel = resumed(config, contents, KernelUse.OWN);
        assertThat(kernel.params().equalsWithEps(reference.params(), 0)).isTrue();
        assertThat(kernel.getUpdater()
                        .getStateViewArray()
                        .equalsWithEps(reference.getUpdater().getStateViewArray(), 0))
                .isTrue();

        INDArray x = Nd4j.rand(DataType.FLOAT, 32, 64);
        INDArray y = Nd4j.zeros(DataType.FLOAT, 32, 10);
        for (int i = 0; i < 32; i++) {
            y.putScalar(i, i % 10, 1);
        }
        assertRelativelyClose(kernel.outputSingle(x), reference.outputSingle(x), 1e-5);
        for (int step = 0; step < 5; step++) {
            Nd4j.getRandom().setSeed(100 + step); // the same dropout masks on both
            reference.fit(new MultiDataSet(x, y));
            Nd4j.getRandom().setSeed(100 + step);
            kernel.fit(new MultiDataSet(x, y));
            assertThat(Math.abs(kernel.score() - reference.score()) / reference.score())
                    .as("loss at step %d", step)
                    .isLessThan(1e-5);
        }
        assertRelativelyClose(kernel.params(), reference.params(), 1e-5);
    }

    /** A network built for {@code config} with the checkpoint's parameters and optimizer state, as a resumed run has it. */
    private static ComputationGraph resumed(RunConfig config, CheckpointFiles.Contents contents, KernelUse kernels) {
        ComputationGraph net = ModelCompiler.build(config.model(), DIGITS, config.seed(), kernels);
        Optimizers.install(net, config.stages().get(0).optimizer(), new FixedSchedule(1e-3), false);
        new ResumePoint(contents).loadInto(net, contents.checkpoint().globalStep());
        return net;
    }

    private static void assertRelativelyClose(INDArray actual, INDArray expected, double tolerance) {
        double diff = actual.sub(expected).norm2Number().doubleValue()
                / expected.norm2Number().doubleValue();
        assertThat(diff).isLessThan(tolerance);
    }
}
