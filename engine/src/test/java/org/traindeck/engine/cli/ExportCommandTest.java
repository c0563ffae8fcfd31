package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.use.RunWeightsReader;
import org.traindeck.engine.use.TrainedModel;
import org.traindeck.engine.use.export.NamedTensor;

/** {@code traindeck export} on a real short run: the files it writes, and every refusal, with nothing left half-way. */
class ExportCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private static RunResult run;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void train() throws Exception {
        run = TrainingRun.open(RunRequest.of(ConfigParser.parse("""
                {"name": "mlp", "outputDir": "out", "seed": 4, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4, "numClasses": 3}, "validationSplit": 0.25},
                 "stages": [{"name": "only", "epochs": 2, "batchSize": 25, "ema": {"decay": 0.5}}]}
                """, dir).orThrow()))
                .runHere();
        assertThat(run.status()).isEqualTo(RunResult.Status.FINISHED);
    }

    private int export(String... args) {
        List<String> all = new ArrayList<>(List.of("export"));
        all.addAll(List.of(args));
        return new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(all.toArray(String[]::new));
    }

    @Test
    void safetensorsHoldTheWeightsInPyTorchsLayoutAndTheGraph() throws Exception {
        Path file = dir.resolve("a.safetensors");
        assertThat(export(run.runDir().toString(), "--format", "safetensors", "--out", file.toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString()).contains("wrote " + file).contains("4 tensors");
        // the mode of the run folder's files (the umask's), not a temporary file's owner-only 0600
        assertThat(Files.getPosixFilePermissions(file))
                .isEqualTo(Files.getPosixFilePermissions(run.runDir().resolve("config.json")));

        byte[] bytes = Files.readAllBytes(file);
        long headerLength =
                ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertThat(headerLength % 8).isZero();
        JsonNode header = JSON.readTree(new String(bytes, 8, (int) headerLength, StandardCharsets.UTF_8));
        assertThat(header.get("dense0.weight").get("shape").toString()).isEqualTo("[8,4]");
        assertThat(header.get("output.bias").get("shape").toString()).isEqualTo("[3]");
        JsonNode graph =
                JSON.readTree(header.get("__metadata__").get("traindeck.graph").asText());
        assertThat(graph.get("model").get("type").asText()).isEqualTo("mlp");
        assertThat(graph.get("source").get("weights").asText()).isEqualTo("last");

        INDArray w = TrainedModel.open(run.runDir(), false).network().getParam("dense0_W");
        JsonNode offsets = header.get("dense0.weight").get("data_offsets");
        ByteBuffer data = ByteBuffer.wrap(
                        bytes, (int) (8 + headerLength + offsets.get(0).asLong()), 4 * 32)
                .order(ByteOrder.LITTLE_ENDIAN);
        for (int o = 0; o < 8; o++) {
            for (int i = 0; i < 4; i++) {
                assertThat(data.getFloat()).as("dense0.weight[%d, %d]", o, i).isEqualTo(w.getFloat(i, o));
            }
        }
    }

    @Test
    void npzWithItsGraphBesideItAndTheWeightAverage() throws Exception {
        Path file = dir.resolve("b.npz");
        assertThat(export(run.runDir().toString(), "--format", "npz", "--ema", "--out", file.toString()))
                .as(err.toString())
                .isZero();
        assertThat(dir.resolve("b.json")).exists();
        for (Path written : List.of(file, dir.resolve("b.json"))) {
            assertThat(Files.getPosixFilePermissions(written))
                    .as(written.toString())
                    .isEqualTo(Files.getPosixFilePermissions(run.runDir().resolve("config.json")));
        }
        assertThat(JSON.readTree(dir.resolve("b.json").toFile())
                        .get("source")
                        .get("weights")
                        .asText())
                .isEqualTo("ema");
        assertThat(out.toString()).contains("the weight average");
        try (var zip = new java.util.zip.ZipFile(file.toFile())) {
            assertThat(zip.stream().map(e -> e.getName()).toList())
                    .containsExactly("dense0.weight.npy", "dense0.bias.npy", "output.weight.npy", "output.bias.npy");
        }
    }

    @Test
    void refusalsSayWhatToDoAndWriteNothing() throws Exception {
        Path kept = dir.resolve("kept.safetensors");
        Files.writeString(kept, "mine");
        assertThat(export(run.runDir().toString(), "--format", "safetensors", "--out", kept.toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains(kept + " exists").contains("--force");
        assertThat(Files.readString(kept)).isEqualTo("mine");

        assertThat(export(
                        run.runDir().toString(),
                        "--format",
                        "npz",
                        "--out",
                        dir.resolve("c.safetensors").toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("a npz file must be named *.npz");
        assertThat(export(
                        run.runDir().toString(),
                        "--format",
                        "onnx",
                        "--out",
                        dir.resolve("c.onnx").toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("unknown format 'onnx'").contains("safetensors, npz");
        assertThat(export(
                        dir.resolve("nowhere").toString(),
                        "--format",
                        "npz",
                        "--out",
                        dir.resolve("d.npz").toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("nowhere");

        assertThat(export(run.runDir().toString(), "--format", "safetensors", "--force", "--out", kept.toString()))
                .isZero();
        assertThat(Files.size(kept)).isGreaterThan(100);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
        }
    }

    @Test
    void aTransposedConvolutionNoPyTorchModuleCopiesIsRefusedByNameAndStillReadsBack() throws Exception {
        RunResult upsampling = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse("""
                        {"name": "up", "outputDir": "out", "seed": 4, "model": {"type": "graph", "layers": [
                          {"name": "up", "type": "deconv2d", "filters": 2, "kernel": 3, "stride": 2},
                          {"type": "globalPool"}]},
                         "data": {"train": {"type": "synthetic", "samples": 32, "imageShape": [6, 6, 1], "numClasses": 2}},
                         "stages": [{"epochs": 1, "batchSize": 16}]}
                        """, dir).orThrow()))
                .runHere();
        assertThat(upsampling.status()).isEqualTo(RunResult.Status.FINISHED);
        Path file = dir.resolve("up.safetensors");

        assertThat(export(upsampling.runDir().toString(), "--format", "safetensors", "--out", file.toString()))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("node 'up' (window 3, stride 2, \"same\" padding)")
                .contains("drops 0 at the start and 1 at the end")
                .contains("\"valid\"");
        assertThat(file).doesNotExist();
        assertThat(new RunWeightsReader().read(upsampling.runDir()))
                .as("a model's init from the run still reads its weights")
                .extracting(NamedTensor::name)
                .contains("up.weight", "up.bias");
    }
}
