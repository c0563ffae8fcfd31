package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * Convolutions with {@code "recompute": true} (conv2d with a concat skip, then conv3d) train as they do without it,
 * and a run stopped in the middle of an epoch resumes bit for bit.
 */
class RecomputedConvolutionResumeTest {

    private static RunConfig config(Path dir, String name, boolean recompute) {
        return config(dir, name, recompute, "cpu", 16);
    }

    /** @param batch per device */
    private static RunConfig config(Path dir, String name, boolean recompute, String devices, int batch) {
        String on = recompute ? ", \"recompute\": true" : "";
        return ConfigParser.parse("""
                {"name": "%1$s", "outputDir": "out", "seed": 9, "devices": "%3$s",
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
                 "stages": [{"name": "main", "epochs": 2, "batchSize": %4$d,
                             "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                """.formatted(name, on, devices, batch), dir).orThrow();
    }

    @Test
    void trainsAsWithoutAndResumesBitForBit(@TempDir Path dir) throws Exception {
        RunResult plain =
                TrainingRun.open(RunRequest.of(config(dir, "plain", false))).runHere();
        RunResult straight =
                TrainingRun.open(RunRequest.of(config(dir, "straight", true))).runHere();
        assertThat(straight.status()).as(straight.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> losses = ResumeTest.lossesByStep(straight.runDir());
        assertThat(losses).hasSize(16);
        // recomputing changes what is kept between the passes, not what is computed: only the order in which the
        // slices' weight gradients are summed, a float's last bits
        Map<Long, Double> without = ResumeTest.lossesByStep(plain.runDir());
        assertThat(losses.keySet()).isEqualTo(without.keySet());
        losses.forEach((step, loss) ->
                assertThat(loss).as("step %d", step).isCloseTo(without.get(step), withinPercentage(1e-4)));
        assertThat(ResumeTest.finalParams(straight)).containsExactly(ResumeTest.finalParams(plain), within(1e-5f));

        RunResult stopped = TestRuns.stopAfterStep(config(dir, "stopped", true), 11);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(resumed.runDir())).isEqualTo(losses);
        assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
    }

    @Test
    void twoCpuWorkersWithRecomputeTrainAsOneDeviceAtTheGlobalBatch(@TempDir Path dir) throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(config(dir, "one", true, "cpu", 32)))
                .runHere();
        RunResult two = TrainingRun.open(RunRequest.of(config(dir, "two", true, "cpu:2", 16)))
                .runHere();
        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        // each worker's replica is built and linked (a into b) as the master is, and slices its half batch again
        Map<Long, Double> a = ResumeTest.lossesByStep(one.runDir());
        Map<Long, Double> b = ResumeTest.lossesByStep(two.runDir());
        assertThat(b.keySet()).isEqualTo(a.keySet());
        b.forEach((step, loss) -> assertThat(loss).as("step %d", step).isCloseTo(a.get(step), withinPercentage(1e-2)));
    }
}
