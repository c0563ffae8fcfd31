package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;

/** A resumed run must be the same run: bit for bit, same steps, same curves. */
class ResumeTest {

    static final String MLP = """
            {"name": "%s", "outputDir": "out", "seed": 11,
             "model": {"type": "mlp", "hidden": [32, 16], "dropout": 0.2},
             "data": {"train": {"type": "synthetic", "samples": 600, "features": 8, "numClasses": 3, "noise": 1.0},
                      "validationSplit": 0.2},
             "stages": [{"name": "main", "epochs": %d, "batchSize": 32,
                         "optimizer": {"type": "adam", "learningRate": 0.01},
                         "schedule": {"type": "step", "everyEpochs": 1, "gamma": 0.7}}]}
            """;

    static final String LENET_TWO_STAGES = """
            {"name": "%s", "outputDir": "out", "seed": 5,
             "model": {"type": "lenet", "channels": [4], "kernelSize": 3, "dense": 16, "dropout": 0.1, "batchNorm": true},
             "data": {"train": {"type": "synthetic", "samples": 320, "imageShape": [8, 8, 1], "numClasses": 4, "noise": 0.5},
                      "validationSplit": 0.25},
             "stages": [
               {"name": "a", "epochs": 2, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.005},
                "schedule": {"type": "warmupCosine", "warmupSteps": 10},
                "augmentation": {"flipHorizontal": true, "rotate90": true, "brightness": 0.2, "contrast": 0.2}},
               {"name": "b", "epochs": 2, "batchSize": 8, "accumulationSteps": 2, "gradientClipping": 0.5,
                "optimizer": {"type": "nesterovs", "learningRate": 0.01}}]}
            """;

    /** A graph whose up-sampling is a 2×2 stride-2 deconv2d with relu: the transposed convolution kernel. */
    static final String DECONV = """
            {"name": "%s", "outputDir": "out", "seed": 7,
             "model": {"type": "graph", "layers": [
               {"name": "enc", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"},
               {"name": "down", "type": "maxPool2d"},
               {"name": "up", "type": "deconv2d", "filters": 3, "kernel": 2, "stride": 2, "activation": "relu"}]},
             "data": {"train": {"type": "synthetic", "samples": 192, "imageShape": [8, 8, 1], "numClasses": 3, "noise": 0.5},
                      "validationSplit": 0.25},
             "stages": [{"name": "main", "epochs": %d, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.01}}]}
            """;

    static RunConfig config(Path dir, String template, String name, Object... args) {
        Object[] all = new Object[args.length + 1];
        all[0] = name;
        System.arraycopy(args, 0, all, 1, args.length);
        return ConfigParser.parse(template.formatted(all), dir).orThrow();
    }

    static Map<Long, Double> lossesByStep(Path runDir) throws IOException {
        Map<Long, Double> out = new TreeMap<>();
        for (JsonNode e : RunFiles.metric(RunFiles.jsonl(runDir), "train/loss")) {
            Double previous = out.put(e.get("step").asLong(), e.get("value").asDouble());
            assertThat(previous)
                    .as("step %d logged twice", e.get("step").asLong())
                    .isNull();
        }
        return out;
    }

    static float[] finalParams(RunResult r) throws Exception {
        return CheckpointFiles.read(r.lastCheckpoint()).params();
    }

    @Test
    void twoEpochsThenTwoMoreEqualsFourStraight(@TempDir Path dir) throws Exception {
        RunResult straight =
                TrainingRun.open(RunRequest.of(config(dir, MLP, "straight", 4))).runHere();
        RunResult first =
                TrainingRun.open(RunRequest.of(config(dir, MLP, "split", 2))).runHere();
        assertThat(first.steps()).isEqualTo(straight.steps() / 2);

        RunResult resumed = TrainingRun.resume(first.runDir(), new ResumeOptions(null, 4), DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(resumed.steps()).isEqualTo(straight.steps());
        assertThat(lossesByStep(resumed.runDir())).isEqualTo(lossesByStep(straight.runDir()));
        assertThat(finalParams(resumed)).containsExactly(finalParams(straight));
        assertThat(resumed.lastMetrics().get("val/accuracy"))
                .isEqualTo(straight.lastMetrics().get("val/accuracy"));
    }

    @Test
    void aTransposedConvolutionOnItsKernelResumesBitForBit(@TempDir Path dir) throws Exception {
        RunResult straight = TrainingRun.open(RunRequest.of(config(dir, DECONV, "straight", 4)))
                .runHere();
        RunResult first =
                TrainingRun.open(RunRequest.of(config(dir, DECONV, "split", 2))).runHere();

        RunResult resumed = TrainingRun.resume(first.runDir(), new ResumeOptions(null, 4), DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(resumed.steps()).isEqualTo(straight.steps());
        assertThat(lossesByStep(resumed.runDir())).isEqualTo(lossesByStep(straight.runDir()));
        assertThat(finalParams(resumed)).containsExactly(finalParams(straight));
    }

    @Test
    void aStopInTheMiddleOfAnEpochResumesBitForBit(@TempDir Path dir) throws Exception {
        RunResult straight = TrainingRun.open(RunRequest.of(config(dir, LENET_TWO_STAGES, "straight")))
                .runHere();
        RunResult stopped = TestRuns.stopAfterStep(config(dir, LENET_TWO_STAGES, "stopped"), 23);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        Checkpoint at = CheckpointFiles.read(stopped.lastCheckpoint()).checkpoint();
        assertThat(at.reason()).isEqualTo("stop");

        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> expected = lossesByStep(straight.runDir());
        Map<Long, Double> actual = lossesByStep(resumed.runDir());
        assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
        assertThat(actual).isEqualTo(expected);
        assertThat(finalParams(resumed)).containsExactly(finalParams(straight));
        // elapsed time continues rather than restarting at zero
        List<JsonNode> events = RunFiles.jsonl(resumed.runDir());
        double elapsedAtStop = events.stream()
                .filter(e -> e.path("step").asLong() == at.globalStep())
                .mapToDouble(e -> e.get("elapsed").asDouble())
                .max()
                .orElseThrow();
        double firstAfter = events.stream()
                .filter(e -> e.path("step").asLong() == at.globalStep() + 1)
                .mapToDouble(e -> e.get("elapsed").asDouble())
                .min()
                .orElseThrow();
        assertThat(firstAfter).isGreaterThanOrEqualTo(at.elapsedSeconds()).isGreaterThan(elapsedAtStop - 1);
        assertThat(RunFiles.lifecycle(events))
                .contains("RUN_STOPPED", "RUN_RESUMED")
                .endsWith("RUN_FINISHED");
        try (var tb = Files.list(resumed.runDir().resolve("tensorboard"))) {
            assertThat(tb.count()).isEqualTo(2);
        }
    }

    @Test
    void resumeFromAChosenCheckpointFileDropsTheLaterMetrics(@TempDir Path dir) throws Exception {
        RunResult full =
                TrainingRun.open(RunRequest.of(config(dir, MLP, "pick", 3))).runHere();
        Path epoch1 = new CheckpointStore(full.runDir())
                .list().stream()
                        .map(Checkpoint.Listed::file)
                        .filter(f -> f.getFileName().toString().startsWith("step-"))
                        .min(Comparator.naturalOrder())
                        .orElseThrow();
        long stepAt = CheckpointFiles.read(epoch1).checkpoint().globalStep();
        Map<Long, Double> before = lossesByStep(full.runDir());

        RunResult again = TrainingRun.resume(epoch1, ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(again.steps()).isEqualTo(full.steps());
        assertThat(lossesByStep(again.runDir())).isEqualTo(before);
        assertThat(Files.readString(again.runDir().resolve("train.log"))).contains("resuming from " + epoch1);
        assertThat(stepAt).isLessThan(full.steps());
    }

    @Test
    void aFinishedRunSaysSoUnlessGivenMoreEpochs(@TempDir Path dir) throws Exception {
        RunResult done =
                TrainingRun.open(RunRequest.of(config(dir, MLP, "done", 1))).runHere();

        RunResult nothing = TrainingRun.resume(done.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(nothing.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(nothing.message()).contains("already finished").contains("--epochs");
        assertThat(nothing.steps()).isEqualTo(done.steps());
    }
}
