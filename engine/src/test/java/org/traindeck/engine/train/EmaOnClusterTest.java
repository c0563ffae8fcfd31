package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;

/**
 * A cluster run's driver takes the one optimizer step ({@link DistributedStep}) and updates the weight average after
 * it as every other tier does: executors (the in-process backend, the same seam Spark's uses) average as one device.
 */
class EmaOnClusterTest {

    private static RunConfig config(Path dir, String name, int batch, String parallel) {
        String digits = TestPaths.repoRoot()
                .resolve("data/digits/digits.csv.gz")
                .toString()
                .replace("\\", "/");
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 5, "devices": "cpu",
                 "model": {"type": "mlp", "hidden": [32], "dropout": 0},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "normalize": "minmax"}, "validationSplit": 0.2},
                 "stages": [{"epochs": 1, "batchSize": %d, "optimizer": {"type": "adam", "learningRate": 0.01},
                             "ema": {"decay": 0.9, "startStep": 2}}],
                 "checkpoint": {"keepBestPerStage": false},
                 "parallel": %s}
                """.formatted(name, digits, batch, parallel), dir)
                .orThrow();
    }

    @Test
    void executorsAverageAsOneDeviceAtTheGlobalBatch(@TempDir Path dir) throws Exception {
        RunResult one =
                TrainingRun.open(RunRequest.of(config(dir, "one", 64, "{}"))).runHere();
        RunResult two = TrainingRun.open(RunRequest.of(
                        config(dir, "two", 32, "{\"cluster\": \"inprocess://localhost:1\", \"executors\": 2}")))
                .runHere();

        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.steps()).isEqualTo(one.steps()).isEqualTo(23);
        float[] a = CheckpointFiles.read(one.lastCheckpoint()).ema();
        float[] b = CheckpointFiles.read(two.lastCheckpoint()).ema();
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < a.length; i++) {
            diff += (double) (a[i] - b[i]) * (a[i] - b[i]);
            norm += (double) a[i] * a[i];
        }
        assertThat(Math.sqrt(diff / norm)).isLessThan(1e-4);
        assertThat(RunFiles.metric(RunFiles.jsonl(two.runDir()), "val_ema/loss"))
                .hasSize(1);
    }
}
