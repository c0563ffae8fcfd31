package org.traindeck.engine.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.InitConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.use.ModelExport;
import org.traindeck.engine.use.TrainedModel;
import org.traindeck.engine.use.export.ExportFormat;
import org.traindeck.engine.use.export.ModelTensors;
import org.traindeck.engine.use.export.NamedTensor;
import org.traindeck.engine.use.export.NamingTable;
import org.traindeck.engine.use.export.WeightsExport;

/**
 * A model starts from weights under the export's names: an export of a trained run loads back into a fresh network of
 * the same model (same outputs), in both formats and from the run folder itself; a new head with strict false trains
 * while a frozen node keeps the loaded weights bit for bit; every tensor is listed in train.log and announced.
 */
class StartingWeightsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String GRAPH = """
            {"name": "%s", "outputDir": "out", "seed": %d,
             "model": {"type": "graph", "layers": [
                 {"name": "dense0", "type": "dense", "units": 16, "activation": "relu" %s},
                 {"name": "norm", "type": "batchNorm"},
                 {"name": "dense1", "type": "dense", "units": 8, "activation": "tanh"}]%s},
             "data": {"train": {"type": "synthetic", "samples": 192, "features": 8, "numClasses": %d, "noise": 0.5},
                      "validationSplit": 0.25},
             "stages": [{"name": "main", "epochs": 2, "batchSize": 32,
                         "optimizer": {"type": "adam", "learningRate": 0.01, "weightDecay": 0.01}}]}
            """;

    @TempDir
    Path dir;

    static RunConfig config(Path dir, String name, long seed, int classes, String dense0Extra, String init) {
        return ConfigParser.parse(GRAPH.formatted(name, seed, dense0Extra, init, classes), dir)
                .orThrow();
    }

    @Test
    void anExportLoadsBackIntoAFreshModelWithTheSameOutputs() throws Exception {
        RunResult trained = TrainingRun.open(RunRequest.of(config(dir, "trained", 3, 3, "", "")))
                .runHere();
        assertThat(trained.status()).isEqualTo(RunResult.Status.FINISHED);
        TrainedModel model = TrainedModel.open(trained.runDir(), false);
        Path safetensors = dir.resolve("trained.safetensors");
        Path npz = dir.resolve("trained.npz");
        ModelExport.write(model, ExportFormat.SAFETENSORS, safetensors, false);
        ModelExport.write(model, ExportFormat.NPZ, npz, false);
        INDArray x = Nd4j.rand(DataType.FLOAT, 20, 8).subi(0.5).muli(4);
        INDArray expected = model.network().outputSingle(x);

        for (Path from : List.of(safetensors, npz, trained.runDir())) {
            ComputationGraph fresh =
                    ModelCompiler.instantiate(model.network().getConfiguration().clone());
            assertThat(fresh.params()).isNotEqualTo(model.network().params());
            InitReport report = StartingWeights.load(new InitConfig(from.toString(), Map.of(), true), dir, fresh);

            assertThat(report.keptNodes()).isEmpty();
            assertThat(report.missing()).isEmpty();
            assertThat(report.loaded()).hasSize(10); // two dense, the norm's four, the output's two
            // dense weights are moved, never computed: bit for bit
            assertThat(fresh.getParam("dense0_W").data().asFloat())
                    .containsExactly(model.network().getParam("dense0_W").data().asFloat());
            double difference = fresh.outputSingle(x).sub(expected).amaxNumber().doubleValue();
            assertThat(difference)
                    .as("largest difference of the outputs from %s", from)
                    .isLessThan(1e-6);
        }
    }

    @Test
    void mapRenamesAnotherNamingAndTwoTensorsOfOneNameAreRefused() throws Exception {
        RunConfig config = config(dir, "map", 3, 3, "", "");
        ModelInput input = new ModelInput(InputType.feedForward(8), Task.CLASSIFICATION, 3);
        ComputationGraph source = ModelCompiler.build(config.model(), input, 5);
        List<NamedTensor> prefixed = new ArrayList<>();
        for (NamedTensor t :
                ModelTensors.of(source, NamingTable.standard(), null).tensors()) {
            prefixed.add(new NamedTensor("backbone." + t.name(), t.shape(), t.values()));
        }
        Path file = dir.resolve("prefixed.npz");
        WeightsExport.write(new ModelTensors(prefixed, JSON.createObjectNode()), ExportFormat.NPZ, file, false);

        ComputationGraph net = ModelCompiler.build(config.model(), input, 6);
        InitReport report =
                StartingWeights.load(new InitConfig("prefixed.npz", Map.of("backbone\\.(.*)", "$1"), true), dir, net);

        assertThat(report.loaded()).contains("dense0.weight [16, 8] ← backbone.dense0.weight");
        assertThat(net.params().data().asFloat())
                .containsExactly(source.params().data().asFloat());
        assertThatThrownBy(() -> StartingWeights.check(
                        new InitConfig("prefixed.npz", Map.of("backbone\\.dense[01]\\.(.*)", "dense0.$1"), true),
                        dir,
                        net))
                .isInstanceOf(WeightsException.class)
                .hasMessageContaining("both become dense0.weight");
        assertThatThrownBy(() -> StartingWeights.check(new InitConfig("prefixed.npz", Map.of(), true), dir, net))
                .hasMessageContaining("missing from the file: dense0.weight [16, 8]");
    }

    @Test
    void aNewHeadTrainsWithStrictFalseWhileAFrozenNodeKeepsTheLoadedWeights() throws Exception {
        RunResult trained = TrainingRun.open(RunRequest.of(config(dir, "three", 3, 3, "", "")))
                .runHere();
        Path file = dir.resolve("three.safetensors");
        ModelExport.write(TrainedModel.open(trained.runDir(), false), ExportFormat.SAFETENSORS, file, false);
        float[] exported = TrainedModel.open(trained.runDir(), false)
                .network()
                .getParam("dense0_W")
                .dup()
                .data()
                .asFloat();

        RunConfig five = config(
                dir,
                "five",
                4,
                5,
                ", \"trainable\": false",
                ", \"init\": {\"from\": \"three.safetensors\", \"strict\": false}");
        RunResult tuned = TrainingRun.open(RunRequest.of(five)).runHere();

        assertThat(tuned.status()).isEqualTo(RunResult.Status.FINISHED);
        String log = Files.readString(tuned.runDir().resolve(RunFolder.LOG));
        assertThat(log)
                .contains("init: loaded dense0.weight [16, 8]")
                .contains("init: loaded norm.running_var [16]")
                .contains("init: other shape output.weight: [3, 8] in the file, [5, 8] in the model")
                .contains("init: node output keeps its initialisation");
        List<String> lifecycle = new ArrayList<>();
        for (String line : Files.readAllLines(tuned.runDir().resolve("metrics.jsonl"))) {
            JsonNode e = JSON.readTree(line);
            if (e.has("event")) {
                lifecycle.add(e.get("event").asText() + ": " + e.path("message").asText());
            }
        }
        assertThat(lifecycle)
                .anySatisfy(l -> assertThat(l)
                        .startsWith("WEIGHTS_LOADED: weights from " + dir.resolve("three.safetensors"))
                        .contains("kept their initialisation: output"));
        TrainedModel after = TrainedModel.open(tuned.runDir(), false);
        assertThat(after.network().getParam("dense0_W").dup().data().asFloat())
                .as("the frozen node after two epochs is what was loaded, bit for bit")
                .containsExactly(exported);
        assertThat(after.network().getParam("dense1_W").dup().data().asFloat())
                .as("the node after it trained")
                .isNotEqualTo(TrainedModel.open(trained.runDir(), false)
                        .network()
                        .getParam("dense1_W")
                        .dup()
                        .data()
                        .asFloat());
        assertThat(CheckpointFiles.read(tuned.lastCheckpoint()).checkpoint().globalStep())
                .isEqualTo(tuned.steps());
    }
}
