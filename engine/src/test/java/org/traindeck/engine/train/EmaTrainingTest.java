package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * The weight average in real runs on the digits data: validated beside the weights, checkpointed, resumed bit for bit,
 * and the same on two CPU workers as on one device at the global batch.
 */
class EmaTrainingTest {

    private static RunConfig config(Path dir, String name, String devices, int batch, String ema, String monitor) {
        return config(dir, name, devices, batch, ema, monitor, "float32");
    }

    private static RunConfig config(
            Path dir, String name, String devices, int batch, String ema, String monitor, String precision) {
        String digits = TestPaths.repoRoot()
                .resolve("data/digits/digits.csv.gz")
                .toString()
                .replace("\\", "/");
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 7, "devices": "%s",
                 "model": {"type": "mlp", "hidden": [32], "dropout": 0},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "normalize": "minmax"}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": %d, "optimizer": {"type": "adam", "learningRate": 0.01, "epsilon": 1e-4},
                             "schedule": {"type": "warmupCosine", "warmupSteps": 5, "minLearningRate": 0.0001}, "ema": %s,
                             "precision": "%s"}],
                 "checkpoint": {"monitor": "%s"}}
                """.formatted(name, devices, digits, batch, ema, precision, monitor), dir)
                .orThrow();
    }

    private static Map<Long, Double> byStep(Path runDir, String metric) throws Exception {
        Map<Long, Double> out = new TreeMap<>();
        for (JsonNode e : RunFiles.metric(RunFiles.jsonl(runDir), metric)) {
            out.put(e.get("step").asLong(), e.get("value").asDouble());
        }
        return out;
    }

    private static double relativeDifference(float[] a, float[] b) {
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < a.length; i++) {
            diff += (double) (a[i] - b[i]) * (a[i] - b[i]);
            norm += (double) a[i] * a[i];
        }
        return Math.sqrt(diff / norm);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"float32", "float16"})
    void decayZeroReproducesTheRawWeightsExactly(String precision, @TempDir Path dir) throws Exception {
        RunResult r = TrainingRun.open(
                        RunRequest.of(config(dir, "zero", "cpu", 64, "{\"decay\": 0}", "val/loss", precision)))
                .runHere();

        assertThat(r.status()).isEqualTo(RunResult.Status.FINISHED);
        CheckpointFiles.Contents c = CheckpointFiles.read(r.lastCheckpoint());
        assertThat(c.ema()).isNotNull().containsExactly(c.params());
        assertThat(byStep(r.runDir(), "val_ema/loss")).hasSize(2).isEqualTo(byStep(r.runDir(), "val/loss"));
        assertThat(byStep(r.runDir(), "val_ema/accuracy")).isEqualTo(byStep(r.runDir(), "val/accuracy"));
    }

    @Test
    void keepingAnAverageLeavesTheTrainingItselfUntouched(@TempDir Path dir) throws Exception {
        RunResult with = TrainingRun.open(RunRequest.of(config(dir, "with", "cpu", 64, "{\"decay\": 0.9}", "val/loss")))
                .runHere();
        RunResult without = TrainingRun.open(RunRequest.of(config(dir, "without", "cpu", 64, "null", "val/loss")))
                .runHere();

        assertThat(CheckpointFiles.read(with.lastCheckpoint()).params())
                .containsExactly(CheckpointFiles.read(without.lastCheckpoint()).params());
        assertThat(byStep(with.runDir(), "train/loss")).isEqualTo(byStep(without.runDir(), "train/loss"));
        assertThat(byStep(with.runDir(), "val/loss")).isEqualTo(byStep(without.runDir(), "val/loss"));
        assertThat(byStep(without.runDir(), "val_ema/loss")).isEmpty();
        assertThat(CheckpointFiles.read(without.lastCheckpoint()).ema()).isNull();
    }

    @ParameterizedTest(name = "devices {0}")
    @ValueSource(strings = {"cpu", "cpu:2"})
    void aStopInTheMiddleOfTheStageResumesTheAverageBitForBit(String devices, @TempDir Path dir) throws Exception {
        String ema = "{\"decay\": 0.9, \"startStep\": 3, \"everySteps\": 2}";
        int batch = devices.equals("cpu") ? 64 : 32;
        RunResult straight = TrainingRun.open(
                        RunRequest.of(config(dir, "straight", devices, batch, ema, "val_ema/loss")))
                .runHere();
        // 1,437 training digits at a global batch of 64: 23 steps an epoch; 17 stops in the first epoch, past startStep
        RunResult stopped = TestRuns.stopAfterStep(config(dir, "stopped", devices, batch, ema, "val_ema/loss"), 17);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(CheckpointFiles.read(stopped.lastCheckpoint()).ema()).isNotNull();

        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(resumed.steps()).isEqualTo(straight.steps());
        CheckpointFiles.Contents a = CheckpointFiles.read(straight.lastCheckpoint());
        CheckpointFiles.Contents b = CheckpointFiles.read(resumed.lastCheckpoint());
        assertThat(b.params()).containsExactly(a.params());
        assertThat(b.ema()).containsExactly(a.ema());
        assertThat(a.ema()).isNotEqualTo(a.params());
        assertThat(byStep(resumed.runDir(), "val_ema/loss")).isEqualTo(byStep(straight.runDir(), "val_ema/loss"));
        // the best checkpoint is the average's: judged by val_ema/loss, holding the average
        double bestEma = byStep(straight.runDir(), "val_ema/loss").values().stream()
                .mapToDouble(Double::doubleValue)
                .min()
                .orElseThrow();
        Path best;
        try (var files = Files.list(straight.runDir().resolve("checkpoints"))) {
            best = files.filter(f -> f.getFileName().toString().startsWith("best"))
                    .findFirst()
                    .orElseThrow();
        }
        CheckpointFiles.Contents bestContents = CheckpointFiles.read(best);
        assertThat(bestContents.checkpoint().best()).containsEntry("stage1", bestEma);
        assertThat(bestContents.ema()).isNotNull();
    }

    @Test
    void twoWorkersAverageAsOneDeviceAtTheGlobalBatch(@TempDir Path dir) throws Exception {
        String ema = "{\"decay\": 0.95, \"startStep\": 2, \"everySteps\": 1}";
        RunResult one = TrainingRun.open(RunRequest.of(config(dir, "one", "cpu", 64, ema, "val/loss")))
                .runHere();
        RunResult two = TrainingRun.open(RunRequest.of(config(dir, "two", "cpu:2", 32, ema, "val/loss")))
                .runHere();

        assertThat(two.steps()).isEqualTo(one.steps()).isEqualTo(46);
        float[] a = CheckpointFiles.read(one.lastCheckpoint()).ema();
        float[] b = CheckpointFiles.read(two.lastCheckpoint()).ema();
        assertThat(relativeDifference(a, b)).isLessThan(1e-4);
        assertThat(relativeDifference(
                        a, CheckpointFiles.read(one.lastCheckpoint()).params()))
                .isGreaterThan(1e-3);
        List<Double> la = List.copyOf(byStep(one.runDir(), "val_ema/loss").values());
        List<Double> lb = List.copyOf(byStep(two.runDir(), "val_ema/loss").values());
        assertThat(la).hasSize(2).hasSameSizeAs(lb);
        for (int i = 0; i < la.size(); i++) {
            assertThat(Math.abs(la.get(i) - lb.get(i)) / la.get(i)).isLessThan(1e-4);
        }
    }
}
