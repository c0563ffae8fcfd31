package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.NamedInputFixtures;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.use.TrainedModel;

/**
 * A ViT over volumes, patches3d → transformerBlock → unpatch3d, trained through the whole run (reconstruction of small
 * random volumes, EMA, per-layer health, checkpoints): its loss falls, two workers train as one device at the global
 * batch, a run resumed from its checkpoint equals one straight through, bit for bit, "recompute" changes nothing of
 * the training, and "trainable" and "lrScale" hold on both nodes' parameters.
 */
class VolumeTransformerTrainingTest {

    private static final int N = 48;
    private static final int SIDE = 4;

    /** Smooth random volumes [N, 1, 4, 4, 4]: a random level, a random slope along each axis and a little noise. */
    private static Path volumes(Path dir) throws Exception {
        Random random = new Random(5);
        double[] values = new double[N * SIDE * SIDE * SIDE];
        int at = 0;
        for (int i = 0; i < N; i++) {
            double level = 0.5 * random.nextGaussian();
            double[] slope = {random.nextGaussian(), random.nextGaussian(), random.nextGaussian()};
            for (int z = 0; z < SIDE; z++) {
                for (int y = 0; y < SIDE; y++) {
                    for (int x = 0; x < SIDE; x++) {
                        values[at++] = level
                                + 0.1 * (slope[0] * z + slope[1] * y + slope[2] * x)
                                + 0.1 * random.nextGaussian();
                    }
                }
            }
        }
        return NamedInputFixtures.npy(
                dir.resolve("volumes.npy"),
                new NamedInputFixtures.Array("<f4", new long[] {N, 1, SIDE, SIDE, SIDE}, values));
    }

    private static RunConfig config(Path dir, String name, String devices, int batch, int epochs) throws Exception {
        return config(dir, name, devices, batch, epochs, "", "");
    }

    /** {@code tokens} and {@code volume}: more options of the patches3d and unpatch3d nodes. */
    private static RunConfig config(
            Path dir, String name, String devices, int batch, int epochs, String tokens, String volume)
            throws Exception {
        return ConfigParser.parse(text(dir, name, devices, batch, epochs, tokens, volume), dir)
                .orThrow();
    }

    private static String text(
            Path dir, String name, String devices, int batch, int epochs, String tokens, String volume)
            throws Exception {
        String data = volumes(dir).toString().replace("\\", "/");
        return """
                {"name": "%s", "outputDir": "out", "seed": 9, "devices": "%s",
                 "model": {"type": "graph", "layers": [
                   {"name": "tokens", "type": "patches3d", "size": 2, "units": 16%s},
                   {"name": "block", "type": "transformerBlock", "heads": 2},
                   {"name": "volume", "type": "unpatch3d", "size": 2, "channels": 4%s}]},
                 "data": {"train": {"type": "numpy", "task": "reconstruction", "inputs": "%s", "layout": "channelsFirst"},
                          "validationSplit": 0.25},
                 "stages": [{"name": "main", "epochs": %d, "batchSize": %d, "gradientClipping": 1.0,
                             "optimizer": {"type": "adamw", "learningRate": 0.003, "weightDecay": 0.01},
                             "ema": {"decay": 0.9}}],
                 "logging": {"layers": {"everySteps": 2, "histogramsEverySteps": 0}},
                 "checkpoint": {"keepBestPerStage": false}}
                """.formatted(name, devices, tokens, volume, data, epochs, batch);
    }

    @Test
    void itLearnsAndTwoWorkersTrainAsOneDevice(@TempDir Path dir) throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(config(dir, "one", "cpu", 12, 4)))
                .runHere();
        RunResult two = TrainingRun.open(RunRequest.of(config(dir, "two", "cpu:2", 6, 4)))
                .runHere();

        assertThat(one.status()).as(one.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = new ArrayList<>(ResumeTest.lossesByStep(one.runDir()).values());
        List<Double> b = new ArrayList<>(ResumeTest.lossesByStep(two.runDir()).values());
        assertThat(a).hasSize(12).hasSameSizeAs(b);
        assertThat(a.get(a.size() - 1)).as("last loss of %s", a).isLessThan(a.get(0) * 0.5);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i)))
                    .as("relative loss difference at step %d", i + 1)
                    .isLessThan(1e-4);
        }
        CheckpointFiles.Contents last = CheckpointFiles.read(one.lastCheckpoint());
        assertThat(last.ema()).isNotNull().hasSameSizeAs(last.params()).isNotEqualTo(last.params());
        Map<String, Map<Long, Double>> health = LayerHealthTest.layerMetrics(one.runDir());
        assertThat(health)
                .containsKeys(
                        LayerMetrics.name("tokens", LayerMetrics.Figure.GRAD_NORM),
                        LayerMetrics.name("tokens", LayerMetrics.Figure.UPDATE_RATIO),
                        LayerMetrics.name("volume", LayerMetrics.Figure.GRAD_NORM),
                        LayerMetrics.name("volume", LayerMetrics.Figure.ACT_STD));
    }

    @Test
    void twoEpochsThenTwoMoreEqualsFourStraight(@TempDir Path dir) throws Exception {
        RunResult straight = TrainingRun.open(RunRequest.of(config(dir, "straight", "cpu", 12, 4)))
                .runHere();
        RunResult first = TrainingRun.open(RunRequest.of(config(dir, "split", "cpu", 12, 2)))
                .runHere();
        assertThat(first.status()).as(first.message()).isEqualTo(RunResult.Status.FINISHED);

        RunResult resumed = TrainingRun.resume(first.runDir(), new ResumeOptions(null, 4), DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(resumed.runDir())).isEqualTo(ResumeTest.lossesByStep(straight.runDir()));
        assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
        assertThat(CheckpointFiles.read(resumed.lastCheckpoint()).ema())
                .containsExactly(CheckpointFiles.read(straight.lastCheckpoint()).ema());
    }

    /**
     * recompute on both nodes: the same losses bit for bit on one device, and on two workers (each thread with its own
     * shared buffers) as one device at the global batch.
     */
    @Test
    void recomputingNodesTrainAsNodesKeepingTheirRows(@TempDir Path dir) throws Exception {
        String on = ", \"recompute\": true";
        RunResult keeping = TrainingRun.open(RunRequest.of(config(dir, "keeping", "cpu", 12, 2)))
                .runHere();
        RunResult recomputing = TrainingRun.open(RunRequest.of(config(dir, "recomputing", "cpu", 12, 2, on, on)))
                .runHere();
        RunResult two = TrainingRun.open(RunRequest.of(config(dir, "two", "cpu:2", 6, 2, on, on)))
                .runHere();
        for (RunResult r : List.of(keeping, recomputing, two)) {
            assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);
        }
        Map<Long, Double> want = ResumeTest.lossesByStep(keeping.runDir());
        assertThat(want).hasSize(6);
        assertThat(ResumeTest.lossesByStep(recomputing.runDir())).isEqualTo(want);
        List<Double> a = new ArrayList<>(want.values());
        List<Double> b = new ArrayList<>(ResumeTest.lossesByStep(two.runDir()).values());
        assertThat(b).hasSameSizeAs(a);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i)))
                    .as("relative loss difference at step %d", i + 1)
                    .isLessThan(1e-4);
        }
    }

    @Test
    void aFrozenPatchEmbeddingKeepsItsWeightsAndAnLrScaleSlowsUnpatch(@TempDir Path dir) throws Exception {
        String frozen = ", \"trainable\": false";
        String slow = ", \"lrScale\": 0.01";
        RunResult start = TestRuns.stopAfterStep(config(dir, "start", "cpu", 12, 2, frozen, slow), 1);
        RunResult end = TrainingRun.open(RunRequest.of(config(dir, "end", "cpu", 12, 2, frozen, slow)))
                .runHere();
        assertThat(end.status()).as(end.message()).isEqualTo(RunResult.Status.FINISHED);
        ComputationGraph before = TrainedModel.open(start.runDir(), false).network();
        ComputationGraph after = TrainedModel.open(end.runDir(), false).network();
        assertThat(after.getLayer("tokens").params().dup().data().asFloat())
                .containsExactly(before.getLayer("tokens").params().dup().data().asFloat());
        double block = change(before, after, "block");
        double volume = change(before, after, "volume");
        assertThat(block).isPositive();
        assertThat(volume)
                .as("unpatch3d's largest change against the block's %s", block)
                .isPositive()
                .isLessThan(block / 10);
    }

    private static double change(ComputationGraph before, ComputationGraph after, String node) {
        return after.getLayer(node)
                .params()
                .sub(before.getLayer(node).params())
                .amaxNumber()
                .doubleValue();
    }
}
