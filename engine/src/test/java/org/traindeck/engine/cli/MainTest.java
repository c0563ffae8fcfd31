package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.traindeck.engine.TestPaths;

class MainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    static Stream<Path> badConfigs() throws IOException {
        return Files.list(TestPaths.badConfigs()).sorted();
    }

    @ParameterizedTest
    @MethodSource("badConfigs")
    void validateExitsWithTwoAndNoStackTraceForEveryBadConfig(Path file) {
        assertThat(run("validate", file.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr())
                .contains("error: ")
                .contains("invalid")
                .doesNotContain("Exception")
                .doesNotContain("\tat ");
    }

    @ParameterizedTest
    @MethodSource("badConfigs")
    void trainRefusesEveryBadConfigWithoutRunning(Path file) {
        assertThat(run("train", file.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr()).contains("nothing was run").doesNotContain("\tat ");
        assertThat(stdout()).doesNotContain("run folder");
    }

    @Test
    void trainSaysTheLineOfALayerThatDoesNotFit(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("shape.json");
        Files.writeString(config, MainAccess.GRAPH_WITH_A_SHAPE_ERROR);

        assertThat(run("train", config.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr()).contains("layers[1] 'b'", "(line 6, column").contains("nothing was run");
        assertThat(dir.resolve("runs")).doesNotExist();
    }

    @Test
    void validateAcceptsASampleConfig() {
        assertThat(run(
                        "validate",
                        TestPaths.sampleConfigs().resolve("digits-mlp.json").toString()))
                .isEqualTo(Main.OK);
        assertThat(stdout()).contains("valid (1 stage(s), model mlp, 17,226 parameters)");
    }

    @Test
    void trainRunsAndPrintsAnEpochLinePerEpoch(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "cli", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4, "numClasses": 2}, "validationSplit": 0.25},
                 "stages": [{"name": "only", "epochs": 3, "batchSize": 25}]}
                """);

        assertThat(run("train", config.toString())).isEqualTo(Main.OK);
        assertThat(stdout())
                .contains("run folder: " + dir.resolve("runs/cli"))
                .contains("[only] epoch 1/3", "[only] epoch 3/3", "val_acc", "finished: 18 steps");
        assertThat(dir.resolve("runs/cli/metrics.jsonl")).isNotEmptyFile();
    }

    /** Other devices on resume are checked against the config's rules, as train --devices is, before anything changes. */
    @Test
    void resumeOnDevicesTheConfigCannotUseIsRefused(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "acc", "model": {"type": "mlp", "hidden": [8]}, "parallel": {"mode": "averaging"},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4, "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 25, "accumulationSteps": 2}]}
                """);
        assertThat(run("train", config.toString())).isEqualTo(Main.OK);
        Path runDir = dir.resolve("runs/acc");
        List<String> before;
        try (Stream<Path> files = Files.walk(runDir)) {
            before = files.map(Path::toString).sorted().toList();
        }

        assertThat(run("train", config.toString(), "--devices", "cpu:2")).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr()).contains("stages[0].accumulationSteps: is not supported with parallel.mode \"averaging\"");
        err.reset();
        assertThat(run("resume", runDir.toString(), "--epochs", "2", "--devices", "cpu:2"))
                .isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr())
                .contains("stages[0].accumulationSteps: is not supported with parallel.mode \"averaging\"")
                .contains("cpu:2")
                .doesNotContain("\tat ");
        try (Stream<Path> files = Files.walk(runDir)) {
            assertThat(files.map(Path::toString).sorted().toList())
                    .as("nothing in the run folder changed")
                    .isEqualTo(before);
        }
    }

    @Test
    void unreadableDataIsInvalidInput(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("d.csv"), "a,b,label\n1,2,0\n1,oops,1\n");
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "cli", "model": {"type": "mlp"}, "data": {"train": {"type": "csv", "path": "d.csv", "header": true}},
                 "stages": [{"epochs": 1}]}
                """);

        assertThat(run("train", config.toString())).isEqualTo(Main.INVALID_INPUT);
        // found while the config is checked, before a run folder is made
        assertThat(stderr())
                .contains("error: data.train.path:")
                .contains("\"oops\" is not a finite number")
                .contains("nothing was run")
                .doesNotContain("\tat ");
    }

    @Test
    void aSingleClassIsInvalidInput(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("d.csv"), "1,2,cat\n3,4,cat\n");
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "cli", "model": {"type": "mlp"}, "data": {"train": {"type": "csv", "path": "d.csv"}},
                 "stages": [{"epochs": 1}]}
                """);

        assertThat(run("train", config.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr()).contains("data.train: holds a single class");
    }

    @Test
    void aDivergedRunExitsWithOne(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "nan", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "task": "regression", "samples": 200, "features": 4}},
                 "stages": [{"epochs": 20, "optimizer": {"type": "sgd", "learningRate": 10}}]}
                """);

        assertThat(run("train", config.toString())).isEqualTo(Main.RUN_FAILED);
        assertThat(stderr()).contains("training diverged");
    }

    @Test
    void usageMistakesExitWithTwo() {
        assertThat(run()).isEqualTo(Main.INVALID_INPUT);
        assertThat(run("frobnicate")).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr())
                .contains("Unmatched argument at index 0: 'frobnicate'")
                .contains("Usage: traindeck");
        assertThat(run("train")).isEqualTo(Main.INVALID_INPUT);
        assertThat(run("validate", "a.json", "b.json")).isEqualTo(Main.INVALID_INPUT);
        assertThat(run("train", "a.json", "--fast")).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr()).contains("Unknown option: '--fast'").contains("Usage: traindeck train");
        assertThat(run("train", "a.json", "--devices", "gpu7")).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr()).contains("'gpu7' is not cpu, cpu:N (1 to 64), all, or GPU indices such as 0,1");
        assertThat(run("queue")).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr())
                .contains("queue needs add, run, list, remove or move")
                .contains("Usage: traindeck queue");
        assertThat(run("compare", "one-run")).isEqualTo(Main.INVALID_INPUT);
        assertThat(run("resume", "somewhere", "--epochs", "0")).isEqualTo(Main.INVALID_INPUT);
        assertThat(stderr()).contains("--epochs needs a whole number of at least 1");
    }

    @Test
    void bashCompletionIsGeneratedFromTheCommands() {
        assertThat(run("generate-completion")).isEqualTo(Main.OK);
        assertThat(stdout()).contains("complete -F").contains("sweep").contains("--devices");
    }

    @Test
    void helpAndVersion() {
        assertThat(run("--help")).isEqualTo(Main.OK);
        assertThat(stdout())
                .contains(
                        "validate",
                        "train",
                        "resume",
                        "queue",
                        "sweep",
                        "devices",
                        "Exit codes: 0 success",
                        "130 / 143");
        assertThat(run("queue", "--help")).isEqualTo(Main.OK);
        assertThat(stdout()).contains("add", "run", "list");
        assertThat(run("--version")).isEqualTo(Main.OK);
        assertThat(stdout()).contains("TrainDeck ");
    }

    @Test
    void devicesListsThisMachinesCpuWithRealFigures() throws IOException {
        // the real machine (no GPU here, or whatever this machine has)
        assertThat(run("devices", "--json")).isEqualTo(Main.OK);
        JsonNode json = new ObjectMapper().readTree(stdout());
        JsonNode devices = json.get("devices");
        JsonNode cpu = devices.get(devices.size() - 1);
        assertThat(cpu.get("id").asText()).isEqualTo("cpu");
        assertThat(cpu.get("cores").asInt()).isPositive();
        assertThat(cpu.get("threads").asInt())
                .isGreaterThanOrEqualTo(cpu.get("cores").asInt());
        assertThat(cpu.get("memoryTotalMiB").asLong()).isGreaterThan(256);
        assertThat(cpu.get("name").asText()).isNotBlank();
        if (devices.size() == 1) {
            assertThat(json.get("gpuReason").asText()).isNotBlank();
        }
    }
}
