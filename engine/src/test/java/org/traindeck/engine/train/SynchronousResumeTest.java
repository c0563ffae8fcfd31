package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;

/** Stopping and resuming synchronous data-parallel runs, on the same and on another number of devices. */
class SynchronousResumeTest {

    private static final String CONFIG = """
            {"name": "%s", "outputDir": "out", "seed": 3, "devices": "cpu:2",
             "model": {"type": "mlp", "hidden": [32], "dropout": 0.2},
             "data": {"train": {"type": "synthetic", "samples": 960, "features": 8, "numClasses": 4, "noise": 1.0},
                      "validationSplit": 0.2},
             "stages": [{"name": "main", "epochs": 3, "batchSize": 16, "accumulationSteps": 2, "gradientClipping": 1.0,
                         "optimizer": {"type": "adam", "learningRate": 0.01},
                         "schedule": {"type": "warmupCosine", "warmupSteps": 5, "minLearningRate": 0.0001}}]}
            """;

    private static RunConfig config(Path dir, String name) {
        return ConfigParser.parse(CONFIG.formatted(name), dir).orThrow();
    }

    private static RunResult stoppedAt(RunConfig config, long step) throws Exception {
        RunResult stopped = TestRuns.stopAfterStep(config, step);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(stopped.steps()).isEqualTo(step);
        return stopped;
    }

    @Test
    void aStopInTheMiddleOfAnEpochOnTwoWorkersResumesBitForBit(@TempDir Path dir) throws Exception {
        RunResult straight =
                TrainingRun.open(RunRequest.of(config(dir, "straight"))).runHere();
        // 768 training samples = 48 batches of 16 an epoch; a step takes 2 workers × 2 = 4: 12 steps an epoch
        RunResult stopped = stoppedAt(config(dir, "stopped"), 17);

        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(resumed.steps()).isEqualTo(straight.steps()).isEqualTo(36);
        assertThat(ResumeTest.lossesByStep(resumed.runDir())).isEqualTo(ResumeTest.lossesByStep(straight.runDir()));
        assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
    }

    @Test
    void resumingOnAnotherNumberOfDevicesContinuesTheGlobalStepAndTheLearningRateCurve(@TempDir Path dir)
            throws Exception {
        int s = 17;
        stoppedAt(config(dir, "moved"), s);

        RunResult resumed = TrainingRun.resume(
                        dir.resolve("out/moved"),
                        new ResumeOptions(null, null, DeviceSelection.cpuWorkers(3)),
                        DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        List<JsonNode> events = RunFiles.jsonl(resumed.runDir());
        List<JsonNode> lr = RunFiles.metric(events, "lr");
        // 12 steps an epoch on 2 workers: epoch 2 had (s - 12) steps × 4 of its 48 batches done; 3 workers × 2 take 6 a
        // step: the rest of it, then 8 steps an epoch
        int rest = (48 - 4 * (s - 12) + 5) / 6;
        assertThat(resumed.steps()).isEqualTo(s + rest + 8);
        assertThat(lr.stream().map(e -> e.get("step").asLong()).toList())
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(1, resumed.steps()).boxed().toList());
        double before = lr.get(s - 1).get("value").asDouble();
        double after = lr.get(s).get("value").asDouble();
        // the stage's progress (not the step count) sets the rate, so the curve goes on where it was, to within one
        // step of the coarser (3-worker) schedule; past the warmup the cosine only decreases on either side
        assertThat(Math.abs(after - before) / before).isLessThan(0.05);
        for (int i = 6; i < lr.size(); i++) {
            if (i != s) {
                assertThat(lr.get(i).get("value").asDouble())
                        .isLessThanOrEqualTo(lr.get(i - 1).get("value").asDouble());
            }
        }
        Map<Long, Double> losses = ResumeTest.lossesByStep(resumed.runDir());
        assertThat(losses).hasSize((int) resumed.steps());
        assertThat(RunFiles.lifecycle(events))
                .contains("RUN_STOPPED", "RUN_RESUMED")
                .endsWith("RUN_FINISHED");
    }
}
