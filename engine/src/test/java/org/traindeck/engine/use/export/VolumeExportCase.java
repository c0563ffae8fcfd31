package org.traindeck.engine.use.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.InitConfig;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.weights.InitReport;
import org.traindeck.engine.weights.StartingWeights;

/**
 * A network ending in a volume, exported: the PyTorch peer module of docs/export.md gives TrainDeck's outputs (within
 * 1e-4) from both file formats, the exported files start a fresh TrainDeck model that gives the same outputs ("init"),
 * and the docs show the peer as it is. A subclass gives the layers, the peer script and how its tensors are named.
 */
abstract class VolumeExportCase {

    /** The graph's layers, as JSON. */
    abstract String layers();

    /** The peer module's script under test resources' export/. */
    abstract String script();

    /** What a subclass does to the trained network before it is exported. */
    void afterTraining(ComputationGraph net) {}

    /** Volumes of 2 channels, 4 deep, 2 high, 6 wide: a grid of 2×1×3 patches, so every axis is told apart. */
    private static final ModelInput INPUT = new ModelInput(
            InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 4, 2, 6, 2), Task.RECONSTRUCTION, 2);

    @TempDir
    Path dir;

    ComputationGraph trained() {
        ModelConfig model =
                ConfigParser.parse("""
                {"name": "v", "model": {"type": "graph", "layers": [%s]},
                 "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 1}]}
                """.formatted(layers()), dir).orThrow().model();
        ComputationGraph net = ModelCompiler.build(model, INPUT, 7);
        INDArray x = Nd4j.randn(DataType.FLOAT, 6, 2, 4, 2, 6);
        for (int i = 0; i < 3; i++) {
            net.fit(new DataSet(x, x));
        }
        afterTraining(net);
        return net;
    }

    List<Path> export(ComputationGraph net) throws Exception {
        ModelTensors tensors = ModelTensors.of(net, NamingTable.standard(), null);
        Path safetensors = dir.resolve("model.safetensors");
        Path npz = dir.resolve("model.npz");
        WeightsExport.write(tensors, ExportFormat.SAFETENSORS, safetensors, false);
        WeightsExport.write(tensors, ExportFormat.NPZ, npz, false);
        return List.of(safetensors, npz);
    }

    @Test
    void thePeerModuleGivesTheSameOutputs() throws Exception {
        String why = TorchScripts.whyNotAvailable();
        assumeTrue(why == null, () -> "PyTorch export check skipped: " + why);
        ComputationGraph net = trained();
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 2, 4, 2, 6);
        INDArray expected = net.outputSingle(x);
        Path inputs = dir.resolve("inputs.npy");
        try (OutputStream out = Files.newOutputStream(inputs)) {
            NpyWriter.write(
                    new NamedTensor(
                            "inputs", x.shape(), x.dup('c').reshape(x.length()).toFloatVector()),
                    out);
        }
        for (Path out : TorchScripts.run(dir, script(), inputs, export(net), Map.of())) {
            INDArray actual = Nd4j.createFromNpyFile(out.toFile()).castTo(DataType.FLOAT);
            assertThat(actual.shape()).isEqualTo(expected.shape());
            assertThat(actual.sub(expected).amaxNumber().doubleValue())
                    .as("largest difference to TrainDeck's outputs from %s", out)
                    .isLessThan(1e-4);
        }
    }

    @Test
    void theExportStartsAFreshModelWithTheSameOutputs() throws Exception {
        ComputationGraph net = trained();
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 2, 4, 2, 6);
        INDArray expected = net.outputSingle(x);
        for (Path file : export(net)) {
            ComputationGraph fresh = ModelCompiler.build(
                    ConfigParser.parse("""
                            {"name": "v", "model": {"type": "graph", "layers": [%s]},
                             "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 1}]}
                            """.formatted(layers()), dir).orThrow().model(), INPUT, 11);
            InitReport report = StartingWeights.load(new InitConfig(file.toString(), Map.of(), true), dir, fresh);
            assertThat(report.unused()).as("every exported tensor is used").isEmpty();
            assertThat(fresh.params()).as("parameters from %s", file).isEqualTo(net.params());
            assertThat(fresh.outputSingle(x)).isEqualTo(expected);
        }
    }

    @Test
    void docsShowThePeerModule() throws Exception {
        String docs = Files.readString(TestPaths.repoRoot().resolve("docs/export.md"));
        try (InputStream in = getClass().getResourceAsStream("/export/" + script())) {
            assertThat(docs)
                    .as("docs/export.md shows %s as it is", script())
                    .contains("```python\n" + new String(in.readAllBytes(), StandardCharsets.UTF_8) + "```");
        }
    }
}
