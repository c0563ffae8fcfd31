package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.NamedInputFixtures;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * A conditional diffusion model (clean pictures as targets, a colour code as conditioning, the timestep through a
 * timestepEmbedding, v-prediction with min-SNR weighting) as a user writes it: its noise is drawn per example from its position in the epoch, so two CPU workers
 * train as one device at the global batch and a stop in the middle of an epoch resumes bit for bit; its denoising
 * loss falls, and validation's fixed draws give the same loss for the same weights.
 */
class DiffusionTrainingTest {

    private static final String CONFIG = """
            {"name": "%s", "outputDir": "out", "seed": 3, "devices": "%s",
             "model": {"type": "graph", "layers": [
               {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 16},
               {"name": "c", "type": "dense", "inputs": "meta", "units": 8, "activation": "tanh"},
               {"name": "tc", "type": "concat", "inputs": ["t", "c"]},
               {"name": "map", "type": "dense", "units": 36},
               {"name": "grid", "type": "reshape", "shape": [1, 6, 6]},
               {"name": "both", "type": "concat", "inputs": ["noisy", "grid"]},
               {"name": "conv", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"}]},
             "data": {"train": {"type": "numpy", "task": "diffusion", "inputs": {"meta": "set.npz:meta"},
                                "targets": "set.npz:image",
                                "diffusion": {"timesteps": 100, "schedule": "cosine", "prediction": "v",
                                              "lossWeighting": "minSnr"}},
                      "validationSplit": 0.25},
             "stages": [{"name": "main", "epochs": %d, "batchSize": %d,
                         "optimizer": {"type": "adam", "learningRate": 0.01}}]}
            """;

    private static RunConfig config(Path dir, String name, String devices, int epochs, int batch) throws Exception {
        if (!Files.exists(dir.resolve("set.npz"))) {
            NamedInputFixtures.npz(dir.resolve("set.npz"), NamedInputFixtures.pictureAndCode(256, 3));
        }
        return ConfigParser.parse(CONFIG.formatted(name, devices, epochs, batch), dir)
                .orThrow();
    }

    @Test
    void twoCpuWorkersTrainAsOneDeviceAtTheGlobalBatch(@TempDir Path dir) throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(config(dir, "one", "cpu", 3, 32)))
                .runHere();
        RunResult two = TrainingRun.open(RunRequest.of(config(dir, "two", "cpu:2", 3, 16)))
                .runHere();

        assertThat(one.status()).as(one.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> a = ResumeTest.lossesByStep(one.runDir());
        Map<Long, Double> b = ResumeTest.lossesByStep(two.runDir());
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(18);
        for (long step : a.keySet()) {
            assertThat(b.get(step)).as("step %d", step).isCloseTo(a.get(step), within(1e-4 * Math.abs(a.get(step))));
        }
    }

    @Test
    void aStopInTheMiddleOfAnEpochResumesBitForBit(@TempDir Path dir) throws Exception {
        RunResult straight = TrainingRun.open(RunRequest.of(config(dir, "straight", "cpu", 3, 32)))
                .runHere();
        RunResult stopped = TestRuns.stopAfterStep(config(dir, "stopped", "cpu", 3, 32), 8);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);

        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(resumed.runDir())).isEqualTo(ResumeTest.lossesByStep(straight.runDir()));
        assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
    }

    @Test
    void theDenoisingLossFalls(@TempDir Path dir) throws Exception {
        RunResult run = TrainingRun.open(RunRequest.of(config(dir, "falls", "cpu", 12, 32)))
                .runHere();

        assertThat(run.status()).as(run.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> losses = ResumeTest.lossesByStep(run.runDir());
        double first = losses.values().stream()
                .limit(6)
                .mapToDouble(Double::doubleValue)
                .average()
                .orElseThrow();
        double last = losses.values().stream()
                .skip(losses.size() - 6)
                .mapToDouble(Double::doubleValue)
                .average()
                .orElseThrow();
        assertThat(last).isLessThan(0.7 * first);
        assertThat(run.lastMetrics()).containsKeys("val/loss", "val/mse");
    }
}
