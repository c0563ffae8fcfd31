package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * A GPT on DL4J's SameDiff layers (positions, layer norms, attention), whose optimizer state now sits in the stage's
 * blocks with the other layers' and is updated by the fused step: two epochs then two more are four straight, bit for bit.
 */
class SameDiffGraphResumeTest {

    private static RunConfig config(Path dir, String name, int epochs) {
        String text =
                TestPaths.repoRoot().resolve("data/text/gpl-3.txt").toString().replace("\\", "/");
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 3,
                 "model": {"type": "gpt", "width": 16, "depth": 1, "heads": 2, "kernel": "dl4j"},
                 "data": {"train": {"type": "text", "path": "%s", "context": 12, "limit": 160}, "validationSplit": 0.1},
                 "stages": [{"name": "main", "epochs": %d, "batchSize": 16, "gradientClipping": 0.5,
                             "optimizer": {"type": "adamw", "learningRate": 0.003, "weightDecay": 0.05},
                             "schedule": {"type": "step", "everyEpochs": 1, "gamma": 0.7}}]}
                """.formatted(name, text, epochs), dir).orThrow();
    }

    @Test
    void twoEpochsThenTwoMoreEqualsFourStraight(@TempDir Path dir) throws Exception {
        RunResult straight =
                TrainingRun.open(RunRequest.of(config(dir, "straight", 4))).runHere();
        RunResult first =
                TrainingRun.open(RunRequest.of(config(dir, "split", 2))).runHere();
        assertThat(first.status()).as(first.message()).isEqualTo(RunResult.Status.FINISHED);

        RunResult resumed = TrainingRun.resume(first.runDir(), new ResumeOptions(null, 4), DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(resumed.runDir())).isEqualTo(ResumeTest.lossesByStep(straight.runDir()));
        assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
    }
}
