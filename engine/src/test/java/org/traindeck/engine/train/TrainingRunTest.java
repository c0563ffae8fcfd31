package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.sinks.CsvSink;
import org.traindeck.engine.sinks.TfEventFileReader;

/** Real runs on small data, checked through the files they write and the events they publish. */
class TrainingRunTest {

    private static RunConfig sample(String file, Path output) {
        return ConfigParser.load(TestPaths.sampleConfigs().resolve(file))
                .orThrow()
                .withOutputDir(output.toString());
    }

    private static RunConfig inline(Path dir, String json) {
        return ConfigParser.parse(json, dir).orThrow();
    }

    @Test
    void theDigitsSampleLearnsAndItsLossFalls(@TempDir Path out) throws IOException {
        RunResult result =
                TrainingRun.open(RunRequest.of(sample("digits-mlp.json", out))).runHere();

        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(result.lastMetrics().get("val/accuracy")).isGreaterThan(0.9);
        List<JsonNode> events = RunFiles.jsonl(result.runDir());
        List<JsonNode> loss = RunFiles.metric(events, "train/loss");
        assertThat(loss).hasSize(15 * 45);
        assertThat(RunFiles.mean(loss, loss.size() - 45, loss.size())).isLessThan(RunFiles.mean(loss, 0, 45) / 5);
        for (int i = 0; i < loss.size(); i++) {
            assertThat(loss.get(i).get("step").asLong()).isEqualTo(i + 1);
            assertThat(loss.get(i).get("stage").asText()).isEqualTo("main");
            assertThat(loss.get(i).has("time")).isTrue();
            assertThat(loss.get(i).get("epoch").asInt()).isEqualTo(i / 45);
        }
        assertThat(RunFiles.lifecycle(events))
                .startsWith("RUN_STARTED", "STAGE_STARTED")
                .endsWith("STAGE_FINISHED", "RUN_FINISHED");
    }

    @Test
    void eachStageHasItsOwnWarmupThenCosineCurve(@TempDir Path out) throws IOException {
        RunResult result = TrainingRun.open(RunRequest.of(sample("digits-lenet-two-stages.json", out)))
                .runHere();

        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        List<JsonNode> lr = RunFiles.metric(RunFiles.jsonl(result.runDir()), "lr");
        for (String stage : List.of("warmup", "finetune")) {
            double[] values = lr.stream()
                    .filter(e -> e.get("stage").asText().equals(stage))
                    .mapToDouble(e -> e.get("value").asDouble())
                    .toArray();
            int peak = 0;
            for (int i = 1; i < values.length; i++) {
                if (values[i] > values[peak]) {
                    peak = i;
                }
            }
            assertThat(peak).as(stage + " warms up first").isGreaterThan(5);
            for (int i = 1; i <= peak; i++) {
                assertThat(values[i]).isGreaterThan(values[i - 1]);
            }
            for (int i = peak + 1; i < values.length; i++) {
                assertThat(values[i]).isLessThanOrEqualTo(values[i - 1]);
            }
            assertThat(values[values.length - 1]).isLessThan(values[peak] / 5);
        }
        assertThat(result.lastMetrics().get("val/accuracy")).isGreaterThan(0.85);
    }

    @Test
    void allThreeMetricFilesAgree(@TempDir Path dir) throws IOException {
        RunConfig config = inline(dir, """
                {"name": "files", "outputDir": "out", "seed": 5, "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4, "numClasses": 3}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 40}]}
                """);
        RunResult result = TrainingRun.open(RunRequest.of(config)).runHere();

        Path run = result.runDir();
        assertThat(run).isEqualTo(dir.resolve("out/files"));
        List<JsonNode> events = RunFiles.jsonl(run);
        List<JsonNode> metrics = events.stream().filter(e -> e.has("name")).toList();
        List<String> csv = Files.readAllLines(run.resolve("metrics.csv"));
        assertThat(csv.get(0)).isEqualTo(CsvSink.HEADER);
        assertThat(csv).hasSize(metrics.size() + 1);
        String[] row = csv.get(csv.size() - 1).split(",");
        JsonNode last = metrics.get(metrics.size() - 1);
        assertThat(row[6]).isEqualTo(last.get("name").asText());
        assertThat(Double.parseDouble(row[7])).isEqualTo(last.get("value").asDouble());
        assertThat(Long.parseLong(row[5])).isEqualTo(last.get("step").asLong());

        Path tbFile;
        try (Stream<Path> files = Files.list(run.resolve("tensorboard"))) {
            tbFile = files.findFirst().orElseThrow();
        }
        List<TfEventFileReader.Event> tb = TfEventFileReader.read(tbFile);
        assertThat(tb.get(0).fileVersion()).isEqualTo("brain.Event:2");
        assertThat(tb).hasSize(metrics.size() + 1);
        assertThat(tb.get(tb.size() - 1).tag()).isEqualTo(last.get("name").asText());
        assertThat(tb.get(tb.size() - 1).value())
                .isEqualTo((float) last.get("value").asDouble());

        assertThat(ConfigParser.load(run.resolve("config.json")).orThrow().stages())
                .isEqualTo(config.stages());
        assertThat(Files.readString(run.resolve("train.log"))).contains("RUN_FINISHED", "val/accuracy");
    }

    @Test
    void aSecondRunWithTheSameNameGetsItsOwnFolder(@TempDir Path dir) throws IOException {
        RunConfig config = inline(dir, """
                {"name": "twice", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "synthetic", "samples": 50, "features": 3}}, "stages": [{"epochs": 1}]}
                """);
        Path first = TrainingRun.open(RunRequest.of(config)).runHere().runDir();
        String firstMetrics = Files.readString(first.resolve("metrics.jsonl"));
        Path second = TrainingRun.open(RunRequest.of(config)).runHere().runDir();

        assertThat(first.getFileName().toString()).isEqualTo("twice");
        assertThat(second.getFileName().toString()).isEqualTo("twice-2");
        assertThat(Files.readString(first.resolve("metrics.jsonl"))).isEqualTo(firstMetrics);
    }

    @Test
    void regressionReportsMseAndMae(@TempDir Path dir) throws IOException {
        RunConfig config = inline(dir, """
                {"name": "reg", "model": {"type": "mlp", "hidden": [32, 32], "activation": "tanh"},
                 "data": {"train": {"type": "synthetic", "task": "regression", "samples": 1000, "features": 2, "noise": 0.1},
                          "validationSplit": 0.2},
                 "stages": [{"epochs": 20, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                """);
        RunResult result = TrainingRun.open(RunRequest.of(config)).runHere();

        List<JsonNode> mse = RunFiles.metric(RunFiles.jsonl(result.runDir()), "val/mse");
        assertThat(mse).hasSize(20);
        assertThat(mse.get(19).get("value").asDouble())
                .isLessThan(mse.get(0).get("value").asDouble() / 3);
        assertThat(result.lastMetrics()).containsKey("val/mae").doesNotContainKey("val/accuracy");
    }

    @Test
    void residualCnnWithAugmentationTrains(@TempDir Path dir) throws IOException {
        RunConfig config = inline(dir, """
                {"name": "res", "model": {"type": "resnet", "blocks": 1, "channels": 8},
                 "data": {"train": {"type": "synthetic", "samples": 400, "imageShape": [8, 8, 1], "numClasses": 4, "noise": 0.3},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": 6, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.01},
                             "augmentation": {"flipHorizontal": true, "brightness": 0.1, "contrast": 0.1}}]}
                """);
        RunResult result = TrainingRun.open(RunRequest.of(config)).runHere();

        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(result.lastMetrics().get("val/accuracy")).isGreaterThan(0.5);
    }

    @Test
    void aDivergingRunStopsWithAdvice(@TempDir Path dir) throws IOException {
        RunConfig config = inline(dir, """
                {"name": "nan", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "task": "regression", "samples": 200, "features": 4}},
                 "stages": [{"epochs": 20, "optimizer": {"type": "sgd", "learningRate": 10}}]}
                """);
        RunResult result = TrainingRun.open(RunRequest.of(config)).runHere();

        assertThat(result.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(result.message()).contains("training diverged", "lower learning rate", "gradientClipping");
        assertThat(RunFiles.lifecycle(RunFiles.jsonl(result.runDir()))).endsWith("RUN_FAILED");
    }

    @Test
    void stopEndsTheRunBetweenSteps(@TempDir Path dir) throws Exception {
        RunConfig config = inline(dir, """
                {"name": "stop", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 2000, "features": 8}},
                 "stages": [{"epochs": 1000, "batchSize": 8}]}
                """);
        TrainingRun run = TrainingRun.open(RunRequest.of(config));
        List<EngineEvent> seen = Collections.synchronizedList(new ArrayList<>());
        run.subscribe(
                e -> {
                    seen.add(e);
                    if (e instanceof MetricEvent m && m.step() == 30) {
                        run.requestStop();
                    }
                },
                EventBus.Delivery.LOSSLESS);
        run.start();
        RunResult result = run.await();

        assertThat(result.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(result.steps()).isBetween(30L, 2000L);
        assertThat(seen)
                .filteredOn(e -> e instanceof LifecycleEvent l && l.isTerminal())
                .singleElement()
                .satisfies(e -> assertThat(((LifecycleEvent) e).kind()).isEqualTo(LifecycleEvent.Kind.RUN_STOPPED));
    }

    @Test
    void badDataIsRefusedNamingTheConfigPathBeforeAnyFolderIsMade(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("bad.csv"), "1,2,0\n1,2\n");
        RunConfig config = inline(dir, """
                {"name": "baddata", "model": {"type": "mlp"}, "data": {"train": {"type": "csv", "path": "bad.csv"}},
                 "stages": [{"epochs": 1}]}
                """);

        Assertions.assertThatThrownBy(() -> TrainingRun.open(RunRequest.of(config)))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("data.train.path:")
                .hasMessageContaining("line 2");
        assertThat(dir.resolve("runs")).doesNotExist();
    }

    @Test
    void anUnusableGpuIsRefusedBeforeAnyFolderIsMade(@TempDir Path dir) {
        RunConfig config = inline(dir, """
                {"name": "gpu", "devices": [0], "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}},
                 "stages": [{"epochs": 1}]}
                """);
        Assertions.assertThatThrownBy(() -> TrainingRun.open(RunRequest.of(config)))
                .hasMessageContaining("devices: asks for GPU [0], but");
        assertThat(dir.resolve("runs")).doesNotExist();
    }
}
