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
 * A small DiT as a user writes it: picture patches through a transformerBlock conditioned (adaLN-Zero) on the
 * timestep's embedding and the code, cross-attending to tokens made from the code, in a diffusion task with an EMA of
 * the weights. Its parameters go everywhere a layer's do: the all-reduce (two CPU workers train as one device), the
 * checkpoints (a stop mid-epoch resumes bit for bit, EMA and the block's dropout included), and the loss falls.
 */
class ConditionedDiffusionTrainingTest {

    private static final String CONFIG = """
            {"name": "%s", "outputDir": "out", "seed": 3, "devices": "%s",
             "model": {"type": "graph", "layers": [
               {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 16},
               {"name": "code", "type": "dense", "inputs": "meta", "units": 8, "activation": "tanh"},
               {"name": "cond", "type": "concat", "inputs": ["t", "code"]},
               {"name": "codeTokens", "type": "dense", "inputs": "meta", "units": 16},
               {"name": "context", "type": "reshape", "shape": [8, 2]},
               {"name": "tokens", "type": "patches", "inputs": "noisy", "size": 2, "units": 8},
               {"name": "block", "type": "transformerBlock", "inputs": "tokens", "heads": 2, "condition": "cond",
                "context": "context", "dropout": %s},
               {"name": "pixels", "type": "dense", "units": 4},
               {"name": "image", "type": "reshape", "shape": [1, 6, 6]}]},
             "data": {"train": {"type": "numpy", "task": "diffusion", "inputs": {"meta": "set.npz:meta"},
                                "targets": "set.npz:image",
                                "diffusion": {"timesteps": 100, "schedule": "cosine", "prediction": "v"}},
                      "validationSplit": 0.25},
             "stages": [{"name": "main", "epochs": %d, "batchSize": %d, "ema": {"decay": 0.9},
                         "optimizer": {"type": "adam", "learningRate": 0.01}}]}
            """;

    /** Without dropout: its masks are drawn per worker, so two workers equal one device only without it. */
    private static RunConfig config(Path dir, String name, String devices, int epochs, int batch) throws Exception {
        return config(dir, name, devices, epochs, batch, 0);
    }

    private static RunConfig config(Path dir, String name, String devices, int epochs, int batch, double dropout)
            throws Exception {
        if (!Files.exists(dir.resolve("set.npz"))) {
            NamedInputFixtures.npz(dir.resolve("set.npz"), NamedInputFixtures.pictureAndCode(256, 3));
        }
        return ConfigParser.parse(CONFIG.formatted(name, devices, dropout, epochs, batch), dir)
                .orThrow();
    }

    @Test
    void twoCpuWorkersTrainAsOneDeviceAndTheLossFalls(@TempDir Path dir) throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(config(dir, "one", "cpu", 4, 32)))
                .runHere();
        RunResult two = TrainingRun.open(RunRequest.of(config(dir, "two", "cpu:2", 4, 16)))
                .runHere();

        assertThat(one.status()).as(one.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> a = ResumeTest.lossesByStep(one.runDir());
        Map<Long, Double> b = ResumeTest.lossesByStep(two.runDir());
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(24);
        for (long step : a.keySet()) {
            assertThat(b.get(step)).as("step %d", step).isCloseTo(a.get(step), within(1e-4 * Math.abs(a.get(step))));
        }
        double first = a.values().stream()
                .limit(6)
                .mapToDouble(Double::doubleValue)
                .average()
                .orElseThrow();
        double last = a.values().stream()
                .skip(a.size() - 6)
                .mapToDouble(Double::doubleValue)
                .average()
                .orElseThrow();
        assertThat(last).isLessThan(0.8 * first);
        assertThat(one.lastMetrics()).containsKeys("val/loss", "val_ema/loss");
    }

    @Test
    void aStopInTheMiddleOfAnEpochResumesBitForBit(@TempDir Path dir) throws Exception {
        RunResult straight = TrainingRun.open(RunRequest.of(config(dir, "straight", "cpu", 2, 32, 0.1)))
                .runHere();
        RunResult stopped = TestRuns.stopAfterStep(config(dir, "stopped", "cpu", 2, 32, 0.1), 8);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);

        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(resumed.runDir())).isEqualTo(ResumeTest.lossesByStep(straight.runDir()));
        assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
    }
}
