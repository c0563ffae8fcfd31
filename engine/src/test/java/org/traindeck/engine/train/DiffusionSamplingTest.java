package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.NamedInputFixtures;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.sinks.ProtoFields;
import org.traindeck.engine.sinks.TfEventFileReader;

/**
 * Validation's sampling in real diffusion runs: a conditional image model scored by PSNR at the epochs
 * {@code diffusion.sampling} names and at the stage's end, its samples shown beside the truth as the sample
 * predictions (in TensorBoard too); sampling leaves the training alone and the same weights give the same samples,
 * after a resume and on two workers too; a stage's weight average is what is sampled, the weights restored exactly;
 * and a volume model conditioned on two views, means along two of its axes (one twice the size), scored by its
 * projection error as well, as its training source's options say (its validation source leaves sampling out).
 */
class DiffusionSamplingTest {

    private static final String IMAGES = """
            {"name": "%s", "outputDir": "out", "seed": 3, "devices": "%s",
             "model": {"type": "graph", "layers": [
               {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 16},
               {"name": "c", "type": "dense", "inputs": "meta", "units": 8, "activation": "tanh"},
               {"name": "tc", "type": "concat", "inputs": ["t", "c"]},
               {"name": "map", "type": "dense", "units": 36},
               {"name": "grid", "type": "reshape", "shape": [1, 6, 6]},
               {"name": "both", "type": "concat", "inputs": ["noisy", "grid"]},
               {"name": "conv", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"}]},
             "data": {"train": {"type": "numpy", "task": "diffusion", "inputs": {"meta": "set.npz:meta"},
                                "targets": "set.npz:image",
                                "diffusion": {%s}},
                      "validationSplit": 0.25},
             "stages": [{"name": "main", "epochs": 3, "batchSize": %d,
                         "optimizer": {"type": "adam", "learningRate": 0.01}%s}],
             "logging": {"samples": {"count": 2}}}
            """;

    private static final String VOLUMES = """
            {"name": "views", "outputDir": "out", "seed": 5,
             "model": {"type": "graph", "layers": [
               {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 16},
               {"name": "f", "type": "dense", "inputs": "front", "units": 16, "activation": "tanh"},
               {"name": "s", "type": "dense", "inputs": "side", "units": 16, "activation": "tanh"},
               {"name": "x", "type": "dense", "inputs": "noisy", "units": 64, "activation": "relu"},
               {"name": "all", "type": "concat", "inputs": ["x", "t", "f", "s"]},
               {"name": "h", "type": "dense", "units": 64, "activation": "relu"},
               {"name": "back", "type": "dense", "units": 64},
               {"name": "volume", "type": "reshape", "shape": [1, 4, 4, 4]}]},
             "data": {"train": {"type": "numpy", "task": "diffusion",
                                "inputs": {"front": "vol.npz:front", "side": "vol.npz:side"},
                                "targets": "vol.npz:volume",
                                "diffusion": {"timesteps": 50, "prediction": "x0",
                                              "sampling": {"everyEpochs": 3, "steps": 5, "count": 6, "sampler": "ddpm"},
                                              "projections": {"front": "depth", "side": "width"}}},
                      "validation": {"type": "numpy", "task": "diffusion",
                                     "inputs": {"front": "held.npz:front", "side": "held.npz:side"},
                                     "targets": "held.npz:volume",
                                     "diffusion": {"timesteps": 50, "prediction": "x0"}}},
             "stages": [{"name": "one", "epochs": 4, "batchSize": 16,
                         "optimizer": {"type": "adam", "learningRate": 0.01}}]}
            """;

    @Test
    void anImageModelIsScoredAtTheEpochsSamplingNamesAndShowsItsSamples(@TempDir Path dir) throws Exception {
        List<SamplesEvent> shown = Collections.synchronizedList(new ArrayList<>());
        RunResult run = images(dir, "every2", 2, shown);

        List<JsonNode> psnr = RunFiles.metric(RunFiles.jsonl(run.runDir()), "val/psnr");
        assertThat(psnr).extracting(e -> e.get("epoch").asInt()).containsExactly(1, 2);
        // a model eighteen steps in is far from the truth (about 0 dB: an error as large as the pictures' range)
        assertThat(psnr).allSatisfy(e -> assertThat(e.get("value").asDouble()).isBetween(-10.0, 40.0));
        assertThat(RunFiles.metric(RunFiles.jsonl(run.runDir()), "val/projection_error"))
                .isEmpty();
        assertThat(Files.readString(run.runDir().resolve("train.log")))
                .contains("sampled 4 validation example(s) after epoch 2 (ddim, 10 steps)")
                .contains("sample predictions: stage \"main\" shows the samples validation generates");

        assertThat(shown).hasSize(2).allSatisfy(e -> {
            assertThat(e.task()).isEqualTo("diffusion");
            assertThat(e.samples()).extracting(SamplesEvent.Sample::index).containsExactly(0, 1);
            assertThat(e.samples()).allSatisfy(s -> {
                assertThat(s.predicted()).startsWith("PSNR ").endsWith(" dB");
                assertThat(s.pictures()).extracting(SamplesEvent.Picture::label).containsExactly("generated", "truth");
                assertThat(s.pictures())
                        .allSatisfy(p -> assertThat(decode(p).getWidth()).isEqualTo(6));
            });
        });
        assertThat(shown.get(1).epoch()).isEqualTo(2);
        assertThat(tensorboardImageTags(run.runDir())).contains("samples/0/generated", "samples/1/truth");
    }

    @Test
    void samplingLeavesTheTrainingAloneAndTheSameWeightsGiveTheSameSamples(@TempDir Path dir) throws Exception {
        RunResult every = images(dir, "every1", 1, new ArrayList<>());
        RunResult second = images(dir, "every2", 2, new ArrayList<>());

        assertThat(ResumeTest.finalParams(every)).containsExactly(ResumeTest.finalParams(second));
        List<JsonNode> a = RunFiles.metric(RunFiles.jsonl(every.runDir()), "val/psnr");
        List<JsonNode> b = RunFiles.metric(RunFiles.jsonl(second.runDir()), "val/psnr");
        assertThat(a).extracting(e -> e.get("epoch").asInt()).containsExactly(0, 1, 2);
        assertThat(b.get(0).get("value").asDouble())
                .isEqualTo(a.get(1).get("value").asDouble());
        assertThat(b.get(1).get("value").asDouble())
                .isEqualTo(a.get(2).get("value").asDouble());
    }

    @Test
    void withAWeightAverageTheAverageIsSampledAndTheWeightsStayExact(@TempDir Path dir) throws Exception {
        String ema = ", \"ema\": {\"decay\": 0.9}";
        RunResult sampled = images(dir, "sampled", sampling(1), "cpu", 32, ema, new ArrayList<>());
        RunResult plain = images(dir, "plain", "", "cpu", 32, ema, new ArrayList<>());

        assertThat(Files.readString(sampled.runDir().resolve("train.log")))
                .contains("sampled 4 validation example(s) after epoch 1 (ddim, 10 steps, the weight average)");
        assertThat(ResumeTest.finalParams(sampled)).containsExactly(ResumeTest.finalParams(plain));
        assertThat(RunFiles.metric(RunFiles.jsonl(plain.runDir()), "val/psnr")).isEmpty();
    }

    @Test
    void aStopInTheMiddleOfAnEpochResumesToTheSameSamples(@TempDir Path dir) throws Exception {
        RunResult straight = images(dir, "straight", sampling(1), "cpu", 32, "", new ArrayList<>());
        RunResult stopped = TestRuns.stopAfterStep(imagesConfig(dir, "stopped", sampling(1), "cpu", 32, ""), 8);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);

        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(psnrByEpoch(resumed.runDir())).isEqualTo(psnrByEpoch(straight.runDir()));
    }

    @Test
    void twoCpuWorkersSampleAsOneDevice(@TempDir Path dir) throws Exception {
        RunResult one = images(dir, "one", sampling(1), "cpu", 32, "", new ArrayList<>());
        RunResult two = images(dir, "two", sampling(1), "cpu:2", 16, "", new ArrayList<>());

        Map<Integer, Double> a = psnrByEpoch(one.runDir());
        Map<Integer, Double> b = psnrByEpoch(two.runDir());
        assertThat(b.keySet()).isEqualTo(a.keySet()).containsExactly(0, 1, 2);
        // the weights agree to 1e-4 relative; a sample follows them through ten denoising steps
        a.forEach(
                (epoch, psnr) -> assertThat(b.get(epoch)).as("epoch %d", epoch).isCloseTo(psnr, within(0.05)));
    }

    private static Map<Integer, Double> psnrByEpoch(Path runDir) throws IOException {
        Map<Integer, Double> out = new TreeMap<>();
        for (JsonNode e : RunFiles.metric(RunFiles.jsonl(runDir), "val/psnr")) {
            out.put(e.get("epoch").asInt(), e.get("value").asDouble());
        }
        return out;
    }

    @Test
    void aVolumeModelConditionedOnTwoViewsIsScoredByItsProjectionError(@TempDir Path dir) throws Exception {
        NamedInputFixtures.npz(dir.resolve("vol.npz"), volumesAndViews(48, 4));
        NamedInputFixtures.npz(dir.resolve("held.npz"), volumesAndViews(16, 9));
        RunResult run = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse(VOLUMES, dir).orThrow()))
                .runHere();

        assertThat(run.status()).as(run.message()).isEqualTo(RunResult.Status.FINISHED);
        List<JsonNode> events = RunFiles.jsonl(run.runDir());
        List<JsonNode> psnr = RunFiles.metric(events, "val/psnr");
        List<JsonNode> projection = RunFiles.metric(events, "val/projection_error");
        // every third epoch and the stage's last: epochs 3 and 4
        assertThat(psnr).extracting(e -> e.get("epoch").asInt()).containsExactly(2, 3);
        assertThat(projection).extracting(e -> e.get("epoch").asInt()).containsExactly(2, 3);
        // about 10.6 dB and 0.11 after four epochs
        assertThat(psnr).allSatisfy(e -> assertThat(e.get("value").asDouble()).isBetween(3.0, 40.0));
        // values in [0, 1]: a mean absolute difference of the views' means is at most 1, and zero only if perfect
        assertThat(projection)
                .allSatisfy(e -> assertThat(e.get("value").asDouble()).isStrictlyBetween(0.0, 1.0));
        assertThat(run.lastMetrics()).containsKeys("val/psnr", "val/projection_error");
    }

    private static RunResult images(Path dir, String name, int every, List<SamplesEvent> shown) throws Exception {
        return images(dir, name, sampling(every), "cpu", 32, "", shown);
    }

    private static String sampling(int every) {
        return "\"sampling\": {\"everyEpochs\": " + every + ", \"steps\": 10, \"count\": 4}";
    }

    private static RunConfig imagesConfig(
            Path dir, String name, String sampling, String devices, int batch, String stage) throws Exception {
        if (!Files.exists(dir.resolve("set.npz"))) {
            NamedInputFixtures.npz(dir.resolve("set.npz"), NamedInputFixtures.pictureAndCode(256, 3));
        }
        String options = "\"timesteps\": 100, \"schedule\": \"cosine\", \"prediction\": \"v\""
                + (sampling.isEmpty() ? "" : ", " + sampling);
        return ConfigParser.parse(IMAGES.formatted(name, devices, options, batch, stage), dir)
                .orThrow();
    }

    private static RunResult images(
            Path dir, String name, String sampling, String devices, int batch, String stage, List<SamplesEvent> shown)
            throws Exception {
        TrainingRun run = TrainingRun.open(RunRequest.of(imagesConfig(dir, name, sampling, devices, batch, stage)));
        run.subscribe(
                (EngineEvent e) -> {
                    if (e instanceof SamplesEvent s) {
                        shown.add(s);
                    }
                },
                EventBus.Delivery.LOSSLESS);
        RunResult result = run.runHere();
        assertThat(result.status()).as(result.message()).isEqualTo(RunResult.Status.FINISHED);
        return result;
    }

    /**
     * {@code volume} [n, 4, 4, 4, 1]: a dim background with a bright 2×2×2 block somewhere; {@code front} [n, 4, 4, 1]
     * its mean along depth; {@code side} [n, 8, 8, 1] its mean along width, each value repeated over 2×2 pixels.
     */
    static Map<String, NamedInputFixtures.Array> volumesAndViews(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] volume = new double[n * 64];
        double[] front = new double[n * 16];
        double[] side = new double[n * 64];
        for (int i = 0; i < n; i++) {
            int oz = r.nextInt(3);
            int oy = r.nextInt(3);
            int ox = r.nextInt(3);
            for (int z = 0; z < 4; z++) {
                for (int y = 0; y < 4; y++) {
                    for (int x = 0; x < 4; x++) {
                        boolean inside =
                                z - oz >= 0 && z - oz < 2 && y - oy >= 0 && y - oy < 2 && x - ox >= 0 && x - ox < 2;
                        double v = (inside ? 0.9 : 0.1) + 0.05 * r.nextDouble();
                        volume[i * 64 + z * 16 + y * 4 + x] = v;
                        front[i * 16 + y * 4 + x] += v / 4;
                        for (int k = 0; k < 4; k++) {
                            side[i * 64 + (2 * z + k / 2) * 8 + 2 * y + k % 2] += v / 4;
                        }
                    }
                }
            }
        }
        return Map.of(
                "volume", new NamedInputFixtures.Array("<f4", new long[] {n, 4, 4, 4, 1}, volume),
                "front", new NamedInputFixtures.Array("<f4", new long[] {n, 4, 4, 1}, front),
                "side", new NamedInputFixtures.Array("<f4", new long[] {n, 8, 8, 1}, side));
    }

    private static List<String> tensorboardImageTags(Path runDir) throws IOException {
        Path file;
        try (Stream<Path> files = Files.list(runDir.resolve("tensorboard"))) {
            file = files.findFirst().orElseThrow();
        }
        List<String> tags = new ArrayList<>();
        for (byte[] record : TfEventFileReader.records(file)) {
            ProtoFields e = ProtoFields.parse(record);
            if (e.has(5)) {
                ProtoFields value = e.message(5).message(1);
                if (value.has(4)) {
                    tags.add(value.string(1));
                }
            }
        }
        return tags;
    }

    private static BufferedImage decode(SamplesEvent.Picture p) {
        try {
            return ImageIO.read(new ByteArrayInputStream(p.png()));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
