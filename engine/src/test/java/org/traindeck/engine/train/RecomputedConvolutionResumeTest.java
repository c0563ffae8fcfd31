package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * Convolutions with {@code "recompute": true} (conv2d with a concat skip, then conv3d) train as they do without it,
 * and a run stopped in the middle of an epoch resumes bit for bit.
 */
class RecomputedConvolutionResumeTest {

    private static RunConfig config(Path dir, String name, boolean recompute) {
        String on = recompute ? ", \"recompute\": true" : "";
        return ConfigParser.parse("""
                {"name": "%1$s", "outputDir": "out", "seed": 9,
                 "model": {"type": "graph", "layers": [
                   {"name": "a", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"%2$s},
                   {"name": "b", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"%2$s},
                   {"name": "skip", "type": "concat", "inputs": ["a", "b"]},
                   {"name": "c", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"%2$s},
                   {"name": "volume", "type": "reshape", "shape": [4, 4, 4, 4]},
                   {"name": "v", "type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"%2$s},
                   {"type": "globalPool"}]},
                 "data": {"train": {"type": "synthetic", "samples": 160, "imageShape": [8, 8, 1], "numClasses": 3,
                                    "noise": 0.5},
                          "validationSplit": 0.25},
                 "stages": [{"name": "main", "epochs": 2, "batchSize": 16,
                             "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                """.formatted(name, on), dir).orThrow();
    }

    @Test
    void trainsAsWithoutAndResumesBitForBit(@TempDir Path dir) throws Exception {
        RunResult plain = TrainingRun.prepare(config(dir, "plain", false)).runHere();
        RunResult straight = TrainingRun.prepare(config(dir, "straight", true)).runHere();
        assertThat(straight.status()).as(straight.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> losses = ResumeTest.lossesByStep(straight.runDir());
        assertThat(losses).hasSize(16);
        // recomputing changes what is kept between the passes, not what is computed
        assertThat(losses).isEqualTo(ResumeTest.lossesByStep(plain.runDir()));
        assertThat(ResumeTest.finalParams(straight)).containsExactly(ResumeTest.finalParams(plain));

        RunResult stopped = TestRuns.stopAfterStep(config(dir, "stopped", true), 11);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        RunResult resumed = TrainingRun.resume(
                        stopped.runDir(), TrainingRun.ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(resumed.runDir())).isEqualTo(losses);
        assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
    }
}
