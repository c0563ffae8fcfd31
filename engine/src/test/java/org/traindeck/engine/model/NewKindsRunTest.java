package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** The new layer types and a zoo model through a whole run: TrainDeck's own batches, training step, optimizer and validation. */
class NewKindsRunTest {

    @Test
    void aGraphOfTheNewTypesLearnsTheSyntheticBars(@TempDir Path dir) throws IOException {
        String config = """
                {"name": "kinds", "outputDir": "out", "seed": 3,
                 "model": {"type": "graph", "layers": [
                   {"type": "depthwiseConv2d", "kernel": 3, "depthMultiplier": 2},
                   {"type": "separableConv2d", "filters": 4, "kernel": 3},
                   {"type": "prelu"},
                   {"type": "reshape", "shape": [16, 16]},
                   {"type": "bidirectional", "units": 8, "returnSequences": false}]},
                 "data": {"train": {"type": "synthetic", "samples": 240, "imageShape": [8, 8, 1], "numClasses": 3},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": 4, "batchSize": 30, "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                """;
        RunResult run = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse(config, dir).orThrow()))
                .runHere();

        assertThat(run.status()).as(run.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(run.lastMetrics().get("val/loss")).isFinite();
        // measured: 1.0 after 4 epochs (seed 3); 3 classes would be 0.33 by chance
        assertThat(run.lastMetrics().get("val/accuracy")).isGreaterThan(0.9);
    }

    @Test
    void aZooModelRunsWithItsLossInPlaceOfItsSoftmax(@TempDir Path dir) throws IOException {
        String config = """
                {"name": "zoo", "outputDir": "out", "seed": 3,
                 "model": {"type": "zoo", "architecture": "simplecnn"},
                 "data": {"train": {"type": "synthetic", "samples": 120, "imageShape": [16, 16, 1], "numClasses": 3},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": 2, "batchSize": 30}]}
                """;
        RunResult run = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse(config, dir).orThrow()))
                .runHere();

        assertThat(run.status()).as(run.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(run.lastMetrics().get("val/loss")).isFinite();
        // measured: 0.87 after 2 epochs (seed 3)
        assertThat(run.lastMetrics().get("val/accuracy")).isGreaterThan(0.5);
    }
}
