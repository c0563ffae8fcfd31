package org.traindeck.engine.use.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.InitConfig;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.use.ModelExport;
import org.traindeck.engine.use.TrainedModel;
import org.traindeck.engine.weights.InitReport;
import org.traindeck.engine.weights.StartingWeights;

/**
 * The exported weights, loaded into the PyTorch module of the same network by the scripts docs/export.md shows, give
 * TrainDeck's outputs on the same inputs (within 1e-4), from both file formats.
 */
class PyTorchExportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @BeforeAll
    static void torchIsThere() {
        String why = TorchScripts.whyNotAvailable();
        assumeTrue(why == null, () -> "PyTorch export check skipped: " + why);
    }

    @Test
    void anMlpGivesTheSameOutputsInPyTorch() throws Exception {
        ModelInput input = new ModelInput(InputType.feedForward(12), Task.CLASSIFICATION, 3);
        ComputationGraph net = ModelCompiler.build(
                new ModelConfig.Mlp(List.of(32, 16), ModelConfig.Activation.RELU, 0.1, null), input, 7);
        INDArray x = Nd4j.randn(DataType.FLOAT, 16, 12);
        train(net, x, oneHot(Nd4j.createFromArray(new int[16]).addi(1), 3));
        assertSameInPyTorch(net, x, "mlp.py", Map.of());
    }

    @Test
    void aCnnWithBatchNormGivesTheSameOutputsInPyTorch() throws Exception {
        ModelInput input = new ModelInput(InputType.convolutional(12, 12, 1), Task.CLASSIFICATION, 3);
        ComputationGraph net = ModelCompiler.build(
                new ModelConfig.LeNet(List.of(4, 8), 5, 16, ModelConfig.Activation.RELU, 0, true), input, 7);
        INDArray x = Nd4j.rand(DataType.FLOAT, 16, 1, 12, 12);
        INDArray classes = Nd4j.createFromArray(new int[] {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0});
        // several steps so that BatchNorm's running mean and variance are far from their start
        for (int i = 0; i < 4; i++) {
            train(net, x, oneHot(classes, 3));
        }
        assertSameInPyTorch(net, x, "cnn.py", Map.of());
    }

    @Test
    void aVitGivesTheSameOutputsInPyTorch() throws Exception {
        ModelInput input = new ModelInput(InputType.convolutional(12, 12, 1), Task.CLASSIFICATION, 3);
        ComputationGraph net = ModelCompiler.build(new ModelConfig.Vit(4, 16, 2, 2, 2, true, 0, false, null), input, 7);
        INDArray x = Nd4j.rand(DataType.FLOAT, 8, 1, 12, 12);
        train(net, x, oneHot(Nd4j.createFromArray(new int[] {0, 1, 2, 0, 1, 2, 0, 1}), 3));
        assertSameInPyTorch(net, x, "vit.py", Map.of());
    }

    @Test
    void aConditionedCrossAttendingBlockAndACrossAttentionGiveTheSameOutputsInPyTorch() throws Exception {
        String config = """
                {"name": "c", "model": {"type": "graph", "layers": [
                  {"name": "tokens", "type": "patches", "size": 2, "units": 8},
                  {"name": "ctx", "type": "patches", "inputs": "input", "size": 4, "units": 8},
                  {"name": "pooled", "type": "globalPool", "inputs": "tokens", "mode": "avg"},
                  {"name": "cond", "type": "dense", "inputs": "pooled", "units": 6, "activation": "relu"},
                  {"name": "blk", "type": "transformerBlock", "inputs": "tokens", "heads": 2, "condition": "cond",
                   "context": "ctx"},
                  {"name": "cross", "type": "crossAttention", "inputs": "blk", "context": "ctx", "heads": 2},
                  {"type": "globalPool", "mode": "avg"}]},
                 "data": {"train": {"type": "synthetic", "samples": 16, "imageShape": [8, 8, 1], "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 8}]}""";
        ModelInput input = new ModelInput(InputType.convolutional(8, 8, 1), Task.CLASSIFICATION, 2);
        ComputationGraph net =
                ModelCompiler.build(ConfigParser.parse(config, dir).orThrow().model(), input, 7);
        // adaLN's map away from its zero start, so that every shift, scale and gate counts
        Nd4j.getRandom().setSeed(5);
        net.params().addi(Nd4j.randn(DataType.FLOAT, net.params().shape()).muli(0.2));
        INDArray x = Nd4j.rand(DataType.FLOAT, 6, 1, 8, 8);
        assertSameInPyTorch(net, x, "conditioned.py", Map.of());
    }

    /** Both implementations of each: TrainDeck's kernel (the default) and DL4J's layer, whose classes differ. */
    /** Window minus stride even and not below -1 along every axis: PyTorch's module has the same output. */
    @ParameterizedTest
    @CsvSource({
        "2, own, 2, 2, same",
        "2, dl4j, 2, 2, same",
        "3, own, 2, 2, same",
        "3, dl4j, 2, 2, same",
        "2, own, 3, 1, same",
        "2, dl4j, 4, 2, same",
        "2, own, 1, 2, same",
        "3, own, 3, 1, same",
        "3, dl4j, 4, 2, same",
        "2, own, 3, 2, valid",
        "3, dl4j, 3, 2, valid"
    })
    void aTransposedConvolutionGivesTheSameOutputsInPyTorchAndReadsBack(
            int dims, String implementation, int kernel, int stride, String padding) throws Exception {
        ModelConfig model = transposedConvolution(dims, implementation, kernel, stride, padding);
        ModelInput input = transposedConvolutionInput(dims);
        ComputationGraph net = ModelCompiler.build(model, input, 7);
        assertThat(net.getLayer("up").conf().getLayer().getClass().getSimpleName())
                .isEqualTo(
                        implementation.equals("own")
                                ? "Deconv%dDKernel".formatted(dims)
                                : "Deconvolution%dD".formatted(dims));
        long[] xShape = dims == 2 ? new long[] {6, 2, 3, 5} : new long[] {6, 2, 3, 2, 4};
        INDArray x = Nd4j.randn(DataType.FLOAT, xShape);
        train(net, x, oneHot(Nd4j.createFromArray(new int[] {0, 1, 0, 1, 1, 0}), 2));
        assertSameInPyTorch(net, x, "deconv.py", Map.of("DIMS", Integer.toString(dims)));

        ComputationGraph fresh = ModelCompiler.build(model, input, 11);
        InitReport report = StartingWeights.load(
                new InitConfig(dir.resolve("model.safetensors").toString(), Map.of(), true), dir, fresh);
        assertThat(report.unused()).as("every exported tensor is used").isEmpty();
        assertThat(fresh.params()).isEqualTo(net.params());
    }

    /** "same" where PyTorch would drop the rows at the other end, or libnd4j shifts the output. */
    @ParameterizedTest
    @CsvSource({"2, own, 3, 2, 0, 1", "2, dl4j, 2, 1, 0, 1", "3, own, 5, 2, 1, 2", "2, own, 1, 3, -1, -1"})
    void aSameTransposedConvolutionPyTorchCannotCopyIsRefusedByName(
            int dims, String implementation, int kernel, int stride, int start, int end) throws Exception {
        ComputationGraph net = ModelCompiler.build(
                transposedConvolution(dims, implementation, kernel, stride, "same"),
                transposedConvolutionInput(dims),
                7);
        assertThat(ModelTensors.of(net, NamingTable.standard(), null)
                        .graph()
                        .get("nodes")
                        .get(0)
                        .has("torch"))
                .as("a run's weights are still read by name (a model's init from a run)")
                .isFalse();
        assertThatThrownBy(() -> TransposedConvolutionArguments.requireExpressible(net))
                .isInstanceOf(ExportException.class)
                .hasMessageContaining("node 'up'")
                .hasMessageContaining("window %d, stride %d".formatted(kernel, stride))
                .hasMessageContaining("drops %d at the start and %d at the end".formatted(start, end))
                .hasMessageContaining("\"valid\"");
    }

    private ModelConfig transposedConvolution(int dims, String implementation, int kernel, int stride, String padding) {
        String config = """
                {"name": "d", "model": {"type": "graph", "layers": [
                  {"name": "up", "type": "deconv%dd", "filters": 3, "kernel": %d, "stride": %d, "padding": "%s",
                   "activation": "relu", "implementation": "%s"}]},
                 "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 1}]}""".formatted(dims, kernel, stride, padding, implementation);
        return ConfigParser.parse(config, dir).orThrow().model();
    }

    private static ModelInput transposedConvolutionInput(int dims) {
        InputType shape = dims == 2
                ? InputType.convolutional(3, 5, 2)
                : InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 3, 2, 4, 2);
        return new ModelInput(shape, Task.CLASSIFICATION, 2);
    }

    @Test
    void theGptSampleAfterAShortRunGivesTheSameOutputsInPyTorch() throws Exception {
        Path sample = TestPaths.sampleConfigs().resolve("text-gpt.json");
        ObjectNode config = (ObjectNode) JSON.readTree(Files.readString(sample));
        config.put("outputDir", dir.resolve("runs").toString());
        ((ObjectNode) config.get("stages").get(0)).put("epochs", 1);
        RunConfig run = ConfigParser.parse(JSON.writeValueAsString(config), sample.getParent())
                .orThrow();
        RunResult result = TrainingRun.open(RunRequest.of(run)).runHere();
        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        TrainedModel model = TrainedModel.open(result.runDir(), false);

        int vocabulary = model.outputs();
        int context = (int) model.inputShapes().get(0)[2];
        Nd4j.getRandom().setSeed(3);
        INDArray ids = Nd4j.rand(DataType.FLOAT, 4, 1, context)
                .muli(vocabulary)
                .castTo(DataType.INT32)
                .castTo(DataType.FLOAT);
        Path safetensors = dir.resolve("model.safetensors");
        Path npz = dir.resolve("model.npz");
        ModelExport.write(model, ExportFormat.SAFETENSORS, safetensors, false);
        ModelExport.write(model, ExportFormat.NPZ, npz, false);
        assertSameInPyTorch(
                model.output(ids)[0],
                ids.reshape(4, context),
                "gpt.py",
                List.of(safetensors, npz),
                Map.of("VOCABULARY", Integer.toString(vocabulary), "CONTEXT", Integer.toString(context)));
    }

    private void assertSameInPyTorch(ComputationGraph net, INDArray x, String script, Map<String, String> env)
            throws Exception {
        ModelTensors tensors = ModelTensors.of(net, NamingTable.standard(), null);
        Path safetensors = dir.resolve("model.safetensors");
        Path npz = dir.resolve("model.npz");
        WeightsExport.write(tensors, ExportFormat.SAFETENSORS, safetensors, false);
        WeightsExport.write(tensors, ExportFormat.NPZ, npz, false);
        assertSameInPyTorch(net.outputSingle(x), x, script, List.of(safetensors, npz), env);
    }

    @Test
    void docsShowTheScriptsThisTestRuns() throws Exception {
        String docs = Files.readString(TestPaths.repoRoot().resolve("docs/export.md"));
        for (String script : List.of(
                "traindeck_weights.py",
                "mlp.py",
                "cnn.py",
                "deconv.py",
                "blocks.py",
                "gpt.py",
                "vit.py",
                "conditioned.py")) {
            try (var in = getClass().getResourceAsStream("/export/" + script)) {
                assertThat(docs)
                        .as("docs/export.md shows %s as it is", script)
                        .contains("```python\n" + new String(in.readAllBytes(), StandardCharsets.UTF_8) + "```");
            }
        }
    }

    /** {@code inputs} as the script reads them; the outputs TrainDeck gave for them. */
    private void assertSameInPyTorch(
            INDArray expected, INDArray inputs, String script, List<Path> weights, Map<String, String> env)
            throws Exception {
        Path file = dir.resolve("inputs.npy");
        try (OutputStream out = Files.newOutputStream(file)) {
            NpyWriter.write(
                    new NamedTensor(
                            "inputs",
                            inputs.shape(),
                            inputs.dup('c').reshape(inputs.length()).toFloatVector()),
                    out);
        }
        for (Path out : TorchScripts.run(dir, script, file, weights, env)) {
            INDArray actual = Nd4j.createFromNpyFile(out.toFile()).castTo(DataType.FLOAT);
            assertThat(actual.shape()).isEqualTo(expected.shape());
            double maxDifference =
                    actual.sub(expected.castTo(DataType.FLOAT)).amaxNumber().doubleValue();
            assertThat(maxDifference)
                    .as("largest difference to TrainDeck's outputs, %s from %s", script, out)
                    .isLessThan(1e-4);
        }
    }

    private static void train(ComputationGraph net, INDArray x, INDArray y) {
        for (int i = 0; i < 3; i++) {
            net.fit(new DataSet(x, y));
        }
    }

    private static INDArray oneHot(INDArray classes, int count) {
        INDArray out = Nd4j.zeros(DataType.FLOAT, classes.length(), count);
        for (int i = 0; i < classes.length(); i++) {
            out.putScalar(i, classes.getInt(i), 1f);
        }
        return out;
    }
}
