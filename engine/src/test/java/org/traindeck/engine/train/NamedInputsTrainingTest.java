package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.NamedInputFixtures;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * A layer graph of two named inputs (a picture through a convolution, a colour code through a dense layer, joined
 * by concat), as a user writes it from docs/configs.md: it trains on one device and on two CPU workers with the same
 * per-step losses at the global batch, resumes bit for bit after a stop in the middle of an epoch, and {@code
 * predict} gives the probabilities {@code evaluate} scores. A per-step sequence of token ids and rewards with a
 * padding mask trains, and its padded steps count for nothing.
 */
class NamedInputsTrainingTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String TWO_INPUTS = """
            {"name": "%s", "outputDir": "out", "seed": 5, "devices": "%s",
             "model": {"type": "graph", "layers": [
               {"name": "conv", "type": "conv2d", "inputs": "image", "filters": 4, "kernel": 3, "activation": "relu"},
               {"name": "pool", "type": "globalPool"},
               {"name": "code", "type": "dense", "inputs": "meta", "units": 6, "activation": "tanh"},
               {"name": "both", "type": "concat", "inputs": ["pool", "code"]},
               {"name": "hidden", "type": "dense", "units": 12, "activation": "relu"}]},
             "data": {"train": {"type": "numpy", "inputs": {"image": "set.npz:image", "meta": "set.npz:meta"},
                                "targets": "set.npz:y"}, "validationSplit": 0.25},
             "stages": [{"name": "main", "epochs": 3, "batchSize": %d,
                         "optimizer": {"type": "adam", "learningRate": 0.01}}]}
            """;

    private static RunConfig twoInputs(Path dir, String name, String devices, int batch) throws Exception {
        if (!Files.exists(dir.resolve("set.npz"))) {
            NamedInputFixtures.npz(dir.resolve("set.npz"), NamedInputFixtures.pictureAndCode(256, 3));
        }
        return ConfigParser.parse(TWO_INPUTS.formatted(name, devices, batch), dir)
                .orThrow();
    }

    @Test
    void twoCpuWorkersTrainAsOneDeviceAtTheGlobalBatch(@TempDir Path dir) throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(twoInputs(dir, "one", "cpu", 32)))
                .runHere();
        RunResult two = TrainingRun.open(RunRequest.of(twoInputs(dir, "two", "cpu:2", 16)))
                .runHere();

        assertThat(one.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.status()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> a = ResumeTest.lossesByStep(one.runDir());
        Map<Long, Double> b = ResumeTest.lossesByStep(two.runDir());
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(18);
        for (long step : a.keySet()) {
            assertThat(b.get(step)).as("step %d", step).isCloseTo(a.get(step), within(1e-4 * Math.abs(a.get(step))));
        }
    }

    @Test
    void clusterExecutorsTrainAsOneDeviceAtTheGlobalBatch(@TempDir Path dir) throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(twoInputs(dir, "alone", "cpu", 32)))
                .runHere();
        RunConfig cluster = ConfigParser.parse(
                        TWO_INPUTS
                                .formatted("executors", "cpu", 16)
                                .replace(
                                        "\"stages\"",
                                        "\"parallel\": {\"cluster\": \"inprocess://localhost:1\", \"executors\": 2},"
                                                + " \"stages\""),
                        dir)
                .orThrow();
        RunResult two = TrainingRun.open(RunRequest.of(cluster)).runHere();

        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<Long, Double> a = ResumeTest.lossesByStep(one.runDir());
        Map<Long, Double> b = ResumeTest.lossesByStep(two.runDir());
        assertThat(b.keySet()).isEqualTo(a.keySet());
        for (long step : a.keySet()) {
            assertThat(b.get(step)).as("step %d", step).isCloseTo(a.get(step), within(1e-4 * Math.abs(a.get(step))));
        }
    }

    @Test
    void aStopInTheMiddleOfAnEpochResumesBitForBit(@TempDir Path dir) throws Exception {
        RunResult straight = TrainingRun.open(RunRequest.of(twoInputs(dir, "straight", "cpu", 32)))
                .runHere();
        RunResult stopped = TestRuns.stopAfterStep(twoInputs(dir, "stopped", "cpu", 32), 8);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);

        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(resumed.runDir())).isEqualTo(ResumeTest.lossesByStep(straight.runDir()));
        assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
    }

    @Test
    void predictGivesTheProbabilitiesEvaluateScores(@TempDir Path dir) throws Exception {
        RunResult run = TrainingRun.open(RunRequest.of(twoInputs(dir, "used", "cpu", 32)))
                .runHere();
        Map<String, NamedInputFixtures.Array> test = NamedInputFixtures.pictureAndCode(64, 99);
        Path inputs = NamedInputFixtures.npz(
                dir.resolve("new.npz"), Map.of("image", test.get("image"), "meta", test.get("meta")));
        Files.writeString(
                dir.resolve("test.json"),
                "{\"type\": \"numpy\", \"inputs\": {\"image\": \"test.npz:image\", \"meta\": \"test.npz:meta\"},"
                        + " \"targets\": \"test.npz:y\"}");
        NamedInputFixtures.npz(dir.resolve("test.npz"), test);

        MainAccess.Result predicted = MainAccess.run(
                "predict",
                run.runDir().toString(),
                inputs.toString(),
                "--out",
                dir.resolve("p.npy").toString());
        MainAccess.Result evaluated = MainAccess.run(
                "evaluate",
                run.runDir().toString(),
                "--data",
                dir.resolve("test.json").toString());

        assertThat(predicted.exitCode()).as(predicted.stderr()).isZero();
        assertThat(evaluated.exitCode()).as(evaluated.stderr()).isZero();
        float[] p = readFloats(dir.resolve("p.npy"), 64 * 4);
        double loss = 0;
        for (int i = 0; i < 64; i++) {
            loss -= Math.log(Math.max(p[i * 4 + (int) test.get("y").values()[i]], 1e-7));
        }
        JsonNode figures =
                JSON.readTree(run.runDir().resolve("evaluation.json").toFile()).path("figures");
        assertThat(loss / 64).isCloseTo(figures.path("val/loss").asDouble(), within(1e-5));
    }

    @Test
    void perStepTargetsTrainAndPaddedStepsCountForNothing(@TempDir Path dir) throws Exception {
        Map<String, NamedInputFixtures.Array> h = NamedInputFixtures.histories(128, 16, 3, 7);
        NamedInputFixtures.npz(dir.resolve("h.npz"), h);
        // the same histories with other targets where the mask says padding
        Map<String, NamedInputFixtures.Array> noisy = new HashMap<>(h);
        double[] targets = h.get("targets").values().clone();
        double[] mask = h.get("mask").values();
        for (int i = 0; i < targets.length; i++) {
            targets[i] = mask[i] == 0 ? 2 : targets[i];
        }
        noisy.put(
                "targets", new NamedInputFixtures.Array("<i8", h.get("targets").shape(), targets));
        NamedInputFixtures.npz(dir.resolve("noisy.npz"), noisy);

        RunResult clean = TrainingRun.open(RunRequest.of(histories(dir, "clean", "h.npz")))
                .runHere();
        RunResult padded = TrainingRun.open(RunRequest.of(histories(dir, "padded", "noisy.npz")))
                .runHere();

        assertThat(clean.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(padded.runDir())).isEqualTo(ResumeTest.lossesByStep(clean.runDir()));
        assertThat(clean.lastMetrics().get("val/accuracy")).isGreaterThan(0.6);
    }

    @Test
    void valuesAtEveryStepTrainAndPaddedStepsCountForNothing(@TempDir Path dir) throws Exception {
        Map<String, NamedInputFixtures.Array> h = NamedInputFixtures.histories(128, 16, 3, 11);
        double[] rewards = h.get("rewards").values();
        double[] mask = h.get("mask").values();
        double[] running = new double[rewards.length];
        double[] noisy = new double[rewards.length];
        double sum = 0;
        double squares = 0;
        for (int i = 0; i < 128; i++) {
            double seen = 0;
            for (int t = 0; t < 16; t++) {
                seen += rewards[i * 16 + t];
                running[i * 16 + t] = mask[i * 16 + t] * seen / (t + 1);
                noisy[i * 16 + t] = mask[i * 16 + t] == 0 ? 5 : running[i * 16 + t];
                sum += running[i * 16 + t];
                squares += running[i * 16 + t] * running[i * 16 + t];
            }
        }
        Map<String, NamedInputFixtures.Array> clean = new HashMap<>(h);
        clean.put("targets", new NamedInputFixtures.Array("<f4", new long[] {128, 16, 1}, running));
        Map<String, NamedInputFixtures.Array> padded = new HashMap<>(h);
        padded.put("targets", new NamedInputFixtures.Array("<f4", new long[] {128, 16, 1}, noisy));
        NamedInputFixtures.npz(dir.resolve("v.npz"), clean);
        NamedInputFixtures.npz(dir.resolve("vp.npz"), padded);

        RunResult a = TrainingRun.open(RunRequest.of(histories(dir, "values", "v.npz", "regression")))
                .runHere();
        RunResult b = TrainingRun.open(RunRequest.of(histories(dir, "valuesPadded", "vp.npz", "regression")))
                .runHere();

        assertThat(a.status()).as(a.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(b.runDir())).isEqualTo(ResumeTest.lossesByStep(a.runDir()));
        double variance = squares / rewards.length - Math.pow(sum / rewards.length, 2);
        assertThat(a.lastMetrics().get("val/mse")).isLessThan(variance / 2);
    }

    private static RunConfig histories(Path dir, String name, String file) {
        return histories(dir, name, file, "sequence");
    }

    private static RunConfig histories(Path dir, String name, String file, String task) {
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 2,
                 "model": {"type": "graph", "layers": [
                   {"name": "act", "type": "embedding", "inputs": "actions", "units": 16},
                   {"name": "rew", "type": "dense", "inputs": "rewards", "units": 16},
                   {"name": "sum", "type": "add", "inputs": ["act", "rew"]},
                   {"name": "pos", "type": "positionEmbedding"},
                   {"name": "block", "type": "transformerBlock", "heads": 2, "causal": true},
                   {"name": "norm", "type": "layerNorm"}]},
                 "data": {"train": {"type": "numpy", "task": "%s",
                                    "inputs": {"actions": "%s:actions", "rewards": "%s:rewards"},
                                    "targets": "%s:targets", "targetMask": "%s:mask"}, "validationSplit": 0.25},
                 "stages": [{"name": "main", "epochs": 4, "batchSize": 16,
                             "optimizer": {"type": "adam", "learningRate": 0.005}}]}
                """.formatted(name, task, file, file, file, file), dir)
                .orThrow();
    }

    private static float[] readFloats(Path npy, int count) throws Exception {
        byte[] bytes = Files.readAllBytes(npy);
        int headerLength = (bytes[8] & 0xff) | (bytes[9] & 0xff) << 8;
        ByteBuffer b = ByteBuffer.wrap(bytes, 10 + headerLength, count * 4).order(ByteOrder.LITTLE_ENDIAN);
        float[] out = new float[count];
        for (int i = 0; i < count; i++) {
            out[i] = b.getFloat();
        }
        return out;
    }
}
