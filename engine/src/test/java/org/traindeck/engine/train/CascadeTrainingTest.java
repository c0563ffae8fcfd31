package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.CascadeFixtures;
import org.traindeck.engine.data.NamedInputFixtures;
import org.traindeck.engine.data.numpy.NpyArray;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.events.LayerMetrics;

/**
 * A two-stage diffusion cascade on tiny pictures, as a user writes it: stage "base" learns 8×8 pictures, stage "up"
 * trains a network of its own on the 16×16 pictures, reading the true picture pooled to 8×8 (with conditioning
 * augmentation) and upsampled back. Each stage keeps its own network, best checkpoint and layer health; a stop inside
 * stage 2, a stop at its first step and a resume from any checkpoint of either network continue the uninterrupted run
 * bit for bit; two CPU workers train it as one device; a resume with another model for a trained stage is refused;
 * and {@code predict} on the run folder runs the cascade, writing 16×16 samples (with --all-stages, stage 1's 8×8
 * ones beside them), or refuses with exit code 2 when a stage's checkpoints are missing.
 */
class CascadeTrainingTest {

    private static final String CONFIG = """
            {"name": "%s", "outputDir": "out", "seed": 5, "devices": "cpu",
             "model": {"type": "graph", "layers": [
               {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 8},
               {"name": "map", "type": "dense", "units": 64},
               {"name": "grid", "type": "reshape", "shape": [1, 8, 8]},
               {"name": "both", "type": "concat", "inputs": ["noisy", "grid"]},
               {"name": "conv", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"}]},
             "data": {"train": {"type": "numpy", "task": "diffusion", "targets": "pictures.npz:low",
                                "diffusion": {"timesteps": 50}},
                      "validationSplit": 0.25},
             "stages": [
               {"name": "base", "epochs": 2, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.01}},
               {"name": "up", "epochs": 2, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.01},
                "data": {"train": {"type": "numpy", "task": "diffusion", "targets": "pictures.npz:high",
                                   "derive": {"lowres": {"downsample": 2, "noise": 0.1}},
                                   "diffusion": {"timesteps": 50}},
                         "validationSplit": 0.25},
                "model": {"type": "graph", "layers": [
                  {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 8},
                  {"name": "upmap", "type": "dense", "units": 256},
                  {"name": "grid", "type": "reshape", "shape": [1, 16, 16]},
                  {"name": "both", "type": "concat", "inputs": ["noisy", "lowres", "grid"]},
                  {"name": "conv", "type": "conv2d", "filters": 6, "kernel": 3, "activation": "relu"}]}}]}
            """;

    static RunConfig config(Path dir, String name) throws Exception {
        return config(dir, name, CONFIG.formatted(name));
    }

    private static RunConfig config(Path dir, String name, String text) throws Exception {
        if (!Files.exists(dir.resolve("pictures.npz"))) {
            CascadeFixtures.pictures(dir.resolve("pictures.npz"));
        }
        return ConfigParser.parse(text, dir).orThrow();
    }

    @Test
    void layerHealthFollowsEachStagesNetwork(@TempDir Path dir) throws Exception {
        String text = CONFIG.formatted("layers")
                .replace("\"stages\": [", "\"logging\": {\"layers\": {\"everySteps\": 1}}, \"stages\": [");
        RunResult run =
                TrainingRun.open(RunRequest.of(config(dir, "layers", text))).runHere();

        assertThat(run.status()).as(run.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<String, Map<Long, Double>> layers = LayerHealthTest.layerMetrics(run.runDir());
        // stage 1 (steps 1 to 6) looks into its network, stage 2 (steps 7 to 12) into its own
        assertThat(layers.get(LayerMetrics.name("map", LayerMetrics.Figure.PARAM_NORM))
                        .keySet())
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(layers.get(LayerMetrics.name("upmap", LayerMetrics.Figure.PARAM_NORM))
                        .keySet())
                .containsExactly(7L, 8L, 9L, 10L, 11L, 12L);
        assertThat(layers.get(LayerMetrics.name("conv", LayerMetrics.Figure.GRAD_NORM))
                        .keySet())
                .hasSize(12);
    }

    @Test
    void eachStageTrainsItsOwnNetworkAndPredictRunsTheCascade(@TempDir Path dir) throws Exception {
        RunResult run = TrainingRun.open(RunRequest.of(config(dir, "cascade"))).runHere();

        assertThat(run.status()).as(run.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(run.runDir())).hasSize(12);
        CheckpointStore store = new CheckpointStore(run.runDir());
        CheckpointFiles.Contents base = CheckpointFiles.read(store.bestFile("base"));
        CheckpointFiles.Contents up = CheckpointFiles.read(store.bestFile("up"));
        assertThat(base.checkpoint().stageName()).isEqualTo("base");
        assertThat(up.checkpoint().stageName()).isEqualTo("up");
        // stage 2's network is its own: another architecture, another parameter count, another fingerprint
        assertThat(up.params().length).isNotEqualTo(base.params().length);
        assertThat(up.checkpoint().modelFingerprint()).contains("lowres");
        assertThat(base.checkpoint().modelFingerprint()).doesNotContain("lowres");
        assertThat(Files.readString(run.runDir().resolve("train.log"))).contains("stage up's model graph");

        Path out = dir.resolve("samples.npy");
        MainAccess.Result predicted = MainAccess.run(
                "predict",
                run.runDir().toString(),
                "--out",
                out.toString(),
                "--count",
                "3",
                "--steps",
                "5",
                "--all-stages");

        assertThat(predicted.exitCode()).as(predicted.stderr()).isZero();
        try (NpyArray top = NpyArray.open(out);
                NpyArray bottom = NpyArray.open(dir.resolve("samples-base.npy"))) {
            assertThat(top.shape()).containsExactly(3, 16, 16, 1);
            assertThat(bottom.shape()).containsExactly(3, 8, 8, 1);
        }
        assertThat(predicted.stdout()).contains("stage base: 3 samples", "stage up: 3 samples");

        // a cascade without stage 2's checkpoints cannot run: a located refusal, exit code 2, nothing written
        for (Path f : Files.list(store.folder()).toList()) {
            if (CheckpointFiles.read(f).checkpoint().stageName().equals("up")) {
                Files.delete(f);
            }
        }
        Path refused = dir.resolve("refused.npy");
        MainAccess.Result missing =
                MainAccess.run("predict", run.runDir().toString(), "--out", refused.toString(), "--count", "3");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.stderr())
                .contains(store.folder().toString(), "stage 2 \"up\" (stages[1].model) has no checkpoint");
        assertThat(refused).doesNotExist();
    }

    @Test
    void aStopInsideTheSecondStageResumesBitForBit(@TempDir Path dir) throws Exception {
        RunResult straight =
                TrainingRun.open(RunRequest.of(config(dir, "straight"))).runHere();
        assertThat(straight.status()).as(straight.message()).isEqualTo(RunResult.Status.FINISHED);

        // step 8: the middle of stage 2's first epoch; step 6: stage 1's last, so the stop comes at stage 2's start
        for (long stopAfter : new long[] {8, 6}) {
            RunResult stopped = TestRuns.stopAfterStep(config(dir, "stopped" + stopAfter), stopAfter);
            assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);

            RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                    .runHere();

            assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
            assertThat(ResumeTest.lossesByStep(resumed.runDir()))
                    .as("stopped after step %d", stopAfter)
                    .isEqualTo(ResumeTest.lossesByStep(straight.runDir()));
            assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
        }
    }

    @Test
    void resumingFromAnyCheckpointOfEitherNetworkContinuesTheUninterruptedRun(@TempDir Path dir) throws Exception {
        String text = CONFIG.formatted("straight")
                .replace("\"stages\": [", "\"checkpoint\": {\"keepLast\": 100}, \"stages\": [");
        RunResult straight =
                TrainingRun.open(RunRequest.of(config(dir, "straight", text))).runHere();
        assertThat(straight.status()).as(straight.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Checkpoint.Listed> written = new CheckpointStore(straight.runDir()).list();
        assertThat(written).extracting(l -> l.checkpoint().stageName()).contains("base", "up");

        int n = 0;
        for (Checkpoint.Listed listed : written) {
            Checkpoint c = listed.checkpoint();
            if (c.globalStep() == straight.steps()) {
                continue; // the run's own end: nothing is left to train
            }
            // a copy of the run folder, as if the run had been killed just after this checkpoint
            Path copy = dir.resolve("copies/" + (n++) + "/straight");
            try (Stream<Path> all = Files.walk(straight.runDir())) {
                for (Path p : all.sorted().toList()) {
                    Path target = copy.resolve(straight.runDir().relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(p, target);
                    }
                }
            }
            Path file = copy.resolve(CheckpointStore.FOLDER)
                    .resolve(listed.file().getFileName().toString());
            RunResult resumed = TrainingRun.resume(file, ResumeOptions.NONE, DeviceDiscovery.system())
                    .runHere();

            String at = c.reason() + " checkpoint at step " + c.globalStep() + " of stage " + c.stageName();
            assertThat(resumed.status()).as(at + ": " + resumed.message()).isEqualTo(RunResult.Status.FINISHED);
            assertThat(ResumeTest.lossesByStep(resumed.runDir()))
                    .as(at)
                    .isEqualTo(ResumeTest.lossesByStep(straight.runDir()));
            assertThat(ResumeTest.finalParams(resumed)).as(at).containsExactly(ResumeTest.finalParams(straight));
        }
        assertThat(n).isGreaterThanOrEqualTo(4);
    }

    @Test
    void twoCpuWorkersTrainTheCascadeAsOneDeviceAtTheGlobalBatch(@TempDir Path dir) throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(config(dir, "one"))).runHere();
        String two = CONFIG.formatted("two")
                .replace("\"devices\": \"cpu\"", "\"devices\": \"cpu:2\"")
                .replace("\"batchSize\": 16", "\"batchSize\": 8");
        RunResult split =
                TrainingRun.open(RunRequest.of(config(dir, "two", two))).runHere();

        assertThat(one.status()).as(one.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(split.status()).as(split.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> a = ResumeTest.lossesByStep(one.runDir());
        Map<Long, Double> b = ResumeTest.lossesByStep(split.runDir());
        // both stages, the derived input's conditioning augmentation included
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(12);
        for (long step : a.keySet()) {
            assertThat(b.get(step)).as("step %d", step).isCloseTo(a.get(step), within(1e-4 * Math.abs(a.get(step))));
        }
    }

    @Test
    void aResumeWithAnotherStageModelIsRefusedAtThatModel(@TempDir Path dir) throws Exception {
        RunResult stopped = TestRuns.stopAfterStep(config(dir, "edited"), 8);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        Path edited = dir.resolve("edited.json");
        Files.writeString(edited, CONFIG.formatted("edited").replace("\"filters\": 6", "\"filters\": 8"));

        assertThatThrownBy(() -> TrainingRun.resume(
                                stopped.runDir(), new ResumeOptions(edited, null), DeviceDiscovery.system())
                        .runHere())
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("stages[1].model")
                .hasMessageContaining("fit only their own architecture");
    }

    @Test
    void aConditionalCascadeReadsItsConditioningAtEveryStage(@TempDir Path dir) throws Exception {
        String text = CONFIG.formatted("conditional")
                .replace(
                        "\"targets\": \"pictures.npz:low\",",
                        "\"targets\": \"pictures.npz:low\", \"inputs\": {\"code\": \"pictures.npz:code\"},")
                .replace(
                        "\"targets\": \"pictures.npz:high\",",
                        "\"targets\": \"pictures.npz:high\", \"inputs\": {\"code\": \"pictures.npz:code\"},")
                .replace(
                        "{\"name\": \"map\", \"type\": \"dense\", \"units\": 64}",
                        "{\"name\": \"c\", \"type\": \"dense\", \"inputs\": \"code\", \"units\": 4},"
                                + " {\"name\": \"tc\", \"type\": \"concat\", \"inputs\": [\"t\", \"c\"]},"
                                + " {\"name\": \"map\", \"type\": \"dense\", \"units\": 64}")
                .replace(
                        "{\"name\": \"upmap\", \"type\": \"dense\", \"units\": 256}",
                        "{\"name\": \"c\", \"type\": \"dense\", \"inputs\": \"code\", \"units\": 4},"
                                + " {\"name\": \"tc\", \"type\": \"concat\", \"inputs\": [\"t\", \"c\"]},"
                                + " {\"name\": \"upmap\", \"type\": \"dense\", \"units\": 256}");
        RunResult run = TrainingRun.open(RunRequest.of(config(dir, "conditional", text)))
                .runHere();
        assertThat(run.status()).as(run.message()).isEqualTo(RunResult.Status.FINISHED);
        Path codes = dir.resolve("codes.npz");
        NamedInputFixtures.npz(
                codes,
                Map.of("code", new NamedInputFixtures.Array("<f4", new long[] {2, 2}, new double[] {0, 0, 0.5, 0.5})));

        Path out = dir.resolve("conditional.npy");
        MainAccess.Result predicted = MainAccess.run(
                "predict", run.runDir().toString(), codes.toString(), "--out", out.toString(), "--steps", "5");

        assertThat(predicted.exitCode()).as(predicted.stderr()).isZero();
        try (NpyArray top = NpyArray.open(out)) {
            assertThat(top.shape()).containsExactly(2, 16, 16, 1);
        }
        MainAccess.Result withoutCodes = MainAccess.run(
                "predict",
                run.runDir().toString(),
                "--count",
                "2",
                "--out",
                dir.resolve("none.npy").toString());
        assertThat(withoutCodes.exitCode()).isEqualTo(2);
        assertThat(withoutCodes.stderr()).contains("code");
    }
}
