package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * A two-stage run resumed from each checkpoint it wrote (every epoch end, the end of stage 1, the best of each
 * stage) is the uninterrupted run: the same per-step losses and the same final parameters, bit for bit. Stage 2
 * either starts a new optimizer (Adam, then Nesterov) or carries Adam's moments over (Adam, then Adam at another
 * learning rate), and a resume at the stage change must do the same.
 */
class ResumeAtEveryCheckpointTest {

    private static final String TWO_STAGES = """
            {"name": "%s", "outputDir": "out", "seed": 5,
             "model": {"type": "lenet", "channels": [4], "kernelSize": 3, "dense": 16, "dropout": 0.1, "batchNorm": true},
             "data": {"train": {"type": "synthetic", "samples": 192, "imageShape": [8, 8, 1], "numClasses": 4, "noise": 0.5},
                      "validationSplit": 0.25},
             "stages": [
               {"name": "a", "epochs": 2, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.005},
                "schedule": {"type": "warmupCosine", "warmupSteps": 4},
                "augmentation": {"flipHorizontal": true, "brightness": 0.2}},
               {"name": "b", "epochs": 2, "batchSize": 8, "accumulationSteps": 2, "gradientClipping": 0.5,
                "optimizer": %s}],
             "checkpoint": {"keepLast": 100, "keepBestPerStage": true, "monitor": "val/loss"}}
            """;

    private static RunConfig config(Path dir, String name, String stageTwoOptimizer) {
        return ConfigParser.parse(TWO_STAGES.formatted(name, stageTwoOptimizer), dir)
                .orThrow();
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.sorted(Comparator.naturalOrder()).toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    @ParameterizedTest(name = "stage 2 optimizer {0}")
    @ValueSource(
            strings = {
                "{\"type\": \"nesterovs\", \"learningRate\": 0.01}",
                "{\"type\": \"adam\", \"learningRate\": 0.001}"
            })
    void resumingFromAnyCheckpointContinuesTheUninterruptedRun(String stageTwoOptimizer, @TempDir Path dir)
            throws Exception {
        RunResult straight = TrainingRun.open(RunRequest.of(config(dir, "straight", stageTwoOptimizer)))
                .runHere();
        assertThat(straight.status()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> expected = ResumeTest.lossesByStep(straight.runDir());
        float[] expectedParams = ResumeTest.finalParams(straight);
        List<Checkpoint.Listed> written = new CheckpointStore(straight.runDir()).list();
        assertThat(written).extracting(l -> l.checkpoint().reason()).contains("epoch", "stage-end", "best");

        int n = 0;
        for (Checkpoint.Listed checkpoint : written) {
            Checkpoint c = checkpoint.checkpoint();
            if (c.globalStep() == straight.steps()) {
                continue; // the run's own end: nothing is left to train
            }
            // each resume works on a copy of the run folder, as if the run had been killed just after this checkpoint
            Path copy = dir.resolve("copies/" + (n++) + "/straight");
            copyTree(straight.runDir(), copy);
            Path file = copy.resolve(CheckpointStore.FOLDER)
                    .resolve(checkpoint.file().getFileName().toString());
            RunResult resumed = TrainingRun.resume(file, ResumeOptions.NONE, DeviceDiscovery.system())
                    .runHere();

            String at = c.reason() + " checkpoint at step " + c.globalStep() + " (stage " + c.stageIndex() + ", epoch "
                    + c.epoch() + ")";
            assertThat(resumed.status()).as(at).isEqualTo(RunResult.Status.FINISHED);
            assertThat(ResumeTest.lossesByStep(resumed.runDir()))
                    .as("losses after resuming from the " + at)
                    .isEqualTo(expected);
            assertThat(CheckpointFiles.read(resumed.lastCheckpoint()).params())
                    .as("final parameters after resuming from the " + at)
                    .containsExactly(expectedParams);
        }
        assertThat(n).isGreaterThanOrEqualTo(4);
    }
}
