package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.PastRun;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.sinks.HistogramsJsonlSink;
import org.traindeck.engine.sinks.TfHistogramReader;

/**
 * Per-layer health on real DL4J training of the digits data: the figures reach metrics.jsonl, the gradient norm is
 * the all-reduced one (the same on one and two workers), a layer given a far too small learning rate is warned about
 * and no other, and with every interval at 0 nothing is taken.
 */
class LayerHealthTest {

    static final String GRAPH = """
            {"type": "graph", "layers": [
              {"name": "a", "type": "dense", "units": 32, "activation": "relu"},
              {"name": "b", "type": "dense", "units": 32, "activation": "relu"%s}]}""";

    static RunConfig config(Path dir, String name, String model, String devices, int batch, String layers) {
        String digits = TestPaths.repoRoot()
                .resolve("data/digits/digits.csv.gz")
                .toString()
                .replace("\\", "/");
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 11, "devices": "%s", "model": %s,
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "imageShape": [8, 8, 1], "normalize": "minmax",
                                    "limit": 960}, "validationSplit": 0.2},
                 "stages": [{"epochs": 1, "batchSize": %d, "optimizer": {"type": "adam", "learningRate": 0.001}}],
                 "logging": {"layers": %s},
                 "checkpoint": {"keepBestPerStage": false}}
                """.formatted(name, devices, model, digits, batch, layers), dir)
                .orThrow();
    }

    /** Each per-layer metric's values by node, figure and step. */
    static Map<String, Map<Long, Double>> layerMetrics(Path runDir) throws IOException {
        Map<String, Map<Long, Double>> out = new TreeMap<>();
        for (JsonNode e : RunFiles.jsonl(runDir)) {
            String name = e.path("name").asText("");
            if (LayerMetrics.isLayerMetric(name)) {
                out.computeIfAbsent(name, k -> new TreeMap<>())
                        .put(e.get("step").asLong(), e.get("value").asDouble());
            }
        }
        return out;
    }

    static List<String> warnings(Path runDir) throws IOException {
        return RunFiles.jsonl(runDir).stream()
                .filter(e -> "WARNING".equals(e.path("event").asText()))
                .map(e -> e.get("message").asText())
                .toList();
    }

    @Test
    void everyLayerWithParametersHasItsFiguresOnLoggedStepsAndItsHistogramsInThePastRun(@TempDir Path dir)
            throws Exception {
        RunResult r = TrainingRun.open(RunRequest.of(config(
                        dir,
                        "figures",
                        GRAPH.formatted(""),
                        "cpu",
                        32,
                        "{\"everySteps\": 4, \"histogramsEverySteps\": 8}")))
                .runHere();

        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<String, Map<Long, Double>> m = layerMetrics(r.runDir());
        for (String node : List.of("a", "b", "output")) {
            for (LayerMetrics.Figure f : LayerMetrics.Figure.values()) {
                assertThat(m).as("figures of %s", node).containsKey(LayerMetrics.name(node, f));
                assertThat(m.get(LayerMetrics.name(node, f)).keySet())
                        .as("%s of %s", f, node)
                        .containsExactly(4L, 8L, 12L, 16L, 20L, 24L);
            }
        }
        Map<Long, Double> ratio = m.get(LayerMetrics.name("a", LayerMetrics.Figure.UPDATE_RATIO));
        assertThat(ratio.values()).allSatisfy(v -> assertThat(v).isBetween(1e-5, 1e-1));
        assertThat(m.get(LayerMetrics.name("a", LayerMetrics.Figure.ACT_ZERO_FRACTION))
                        .values())
                .allSatisfy(v -> assertThat(v).isBetween(0.05, 0.95));
        assertThat(m.get(LayerMetrics.name("output", LayerMetrics.Figure.ACT_ZERO_FRACTION))
                        .values())
                .allSatisfy(v -> assertThat(v).isZero());
        assertThat(m.get(LayerMetrics.name("b", LayerMetrics.Figure.PARAM_NORM)).values())
                .allSatisfy(v -> assertThat(v).isPositive());
        assertThat(r.lastMetrics())
                .as("the run's result holds run-level metrics only")
                .noneSatisfy((k, v) -> assertThat(k).startsWith("layer/"));
        assertThat(warnings(r.runDir())).isEmpty();

        // histograms.jsonl: every node with parameters, weights and gradients, at steps 8, 16, 24
        List<String> lines = Files.readAllLines(r.runDir().resolve(HistogramsJsonlSink.FILE));
        assertThat(lines).hasSize(3 * 3 * 2);
        PastRun past = Engine.local().pastRuns().open(r.runDir());
        assertThat(past.histograms()).hasSize(18);
        assertThat(past.histograms()).extracting(HistogramEvent::step).containsOnly(8L, 16L, 24L);
        HistogramEvent w = past.histograms().stream()
                .filter(h -> h.node().equals("a") && h.quantity().equals(HistogramEvent.WEIGHTS) && h.step() == 24)
                .findFirst()
                .orElseThrow();
        assertThat(w.count()).isEqualTo(64 * 32 + 32);
        assertThat(Arrays.stream(w.bucketCounts()).sum()).isEqualTo(w.count());
        assertThat(past.history()).noneMatch(e -> e instanceof HistogramEvent);

        // the same histograms as TensorBoard summaries, decoded field by field
        Path events;
        try (Stream<Path> files = Files.list(r.runDir().resolve("tensorboard"))) {
            events = files.filter(f -> f.getFileName().toString().startsWith("events.out.tfevents."))
                    .findFirst()
                    .orElseThrow();
        }
        List<TfHistogramReader.Histogram> tb = TfHistogramReader.read(events);
        assertThat(tb).hasSize(18);
        assertThat(tb)
                .extracting(TfHistogramReader.Histogram::tag)
                .contains("layer/a/weights", "layer/a/gradients", "layer/output/weights");
        for (TfHistogramReader.Histogram h : tb) {
            assertThat(Arrays.stream(h.buckets()).sum()).as(h.tag()).isEqualTo(h.num());
            assertThat(h.bucketLimits()).as(h.tag()).isSorted();
            assertThat(h.bucketLimits()[h.bucketLimits().length - 1])
                    .as(h.tag())
                    .isEqualTo(h.max());
            assertThat(h.min()).as(h.tag()).isLessThan(h.max());
        }
        TfHistogramReader.Histogram tw = tb.stream()
                .filter(h -> h.tag().equals("layer/a/weights") && h.step() == 24)
                .findFirst()
                .orElseThrow();
        assertThat(tw.num()).isEqualTo(w.count());
        assertThat(tw.sumSquares()).isCloseTo(w.sumSquares(), within(1e-9));
    }

    @Test
    void aTransposedConvolutionOnItsKernelHasItsFigures(@TempDir Path dir) throws Exception {
        String model = """
                {"type": "graph", "layers": [
                  {"name": "enc", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"},
                  {"name": "down", "type": "maxPool2d"},
                  {"name": "up", "type": "deconv2d", "filters": 4, "kernel": 2, "stride": 2, "activation": "relu"}]}""";
        RunResult r = TrainingRun.open(RunRequest.of(config(dir, "deconv", model, "cpu", 32, "{\"everySteps\": 4}")))
                .runHere();

        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<String, Map<Long, Double>> m = layerMetrics(r.runDir());
        for (LayerMetrics.Figure f : LayerMetrics.Figure.values()) {
            assertThat(m).as("figures of up").containsKey(LayerMetrics.name("up", f));
            assertThat(m.get(LayerMetrics.name("up", f)).keySet())
                    .as("%s of up", f)
                    .contains(4L, 8L, 24L);
        }
        assertThat(m.get(LayerMetrics.name("up", LayerMetrics.Figure.ACT_ZERO_FRACTION))
                        .values())
                .as("the relu's zeros in the kernel's output")
                .allSatisfy(v -> assertThat(v).isBetween(0.05, 0.95));
        assertThat(m.get(LayerMetrics.name("up", LayerMetrics.Figure.GRAD_NORM)).values())
                .allSatisfy(v -> assertThat(v).isPositive());
    }

    /** The ViT and U-Net samples' networks (their model sections as written), on a little of their kind of data. */
    @Test
    void theVitAndUnetSamplesHaveTheirFiguresAndHistograms(@TempDir Path dir) throws Exception {
        ObjectMapper json = new ObjectMapper();
        Path samples = TestPaths.repoRoot().resolve("sample-configs");
        String vit = json.readTree(samples.resolve("fashion-vit.json").toFile())
                .get("model")
                .toString();
        String unet = json.readTree(samples.resolve("shapes-unet.json").toFile())
                .get("model")
                .toString();
        String shapes = TestPaths.repoRoot()
                .resolve("data/shapes/shapes.npz")
                .toString()
                .replace("\\", "/");
        String layers = "{\"everySteps\": 2, \"histogramsEverySteps\": 4}";
        RunResult v = TrainingRun.open(RunRequest.of(config(dir, "vit", vit, "cpu", 32, layers)))
                .runHere();
        RunResult u = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse("""
                {"name": "unet", "outputDir": "out", "seed": 3, "model": %s,
                 "data": {"train": {"type": "numpy", "task": "segmentation", "inputs": "%s:x", "targets": "%s:y", "numClasses": 3,
                                    "scale": 0.00392156862745098, "limit": 48}},
                 "stages": [{"epochs": 1, "batchSize": 8, "optimizer": {"type": "adam", "learningRate": 0.003}, "validationInterval": 0}],
                 "logging": {"layers": %s}, "checkpoint": {"keepBestPerStage": false}}
                """.formatted(unet, shapes, shapes, layers), dir)
                                .orThrow()))
                .runHere();

        assertThat(v.status()).as(v.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(u.status()).as(u.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<String, Map<Long, Double>> vm = layerMetrics(v.runDir());
        Map<String, Map<Long, Double>> um = layerMetrics(u.runDir());
        assertThat(um)
                .containsKeys(
                        LayerMetrics.name("enc1a", LayerMetrics.Figure.UPDATE_RATIO),
                        LayerMetrics.name("bottom2", LayerMetrics.Figure.GRAD_NORM),
                        LayerMetrics.name("dec1b", LayerMetrics.Figure.ACT_ZERO_FRACTION),
                        LayerMetrics.name("head", LayerMetrics.Figure.PARAM_NORM));
        // each fused transformer block reports as one node, like any layer
        assertThat(vm)
                .containsKeys(
                        LayerMetrics.name("block1", LayerMetrics.Figure.GRAD_NORM),
                        LayerMetrics.name("block2", LayerMetrics.Figure.UPDATE_RATIO),
                        LayerMetrics.name("block1", LayerMetrics.Figure.ACT_STD));
        long vitNodes = vm.keySet().stream()
                .filter(k -> k.endsWith("/" + LayerMetrics.Figure.GRAD_NORM.suffix()))
                .count();
        assertThat(vitNodes).as("ViT nodes with a gradient: %s", vm.keySet()).isGreaterThanOrEqualTo(5);
        assertThat(vm.values())
                .allSatisfy(series -> assertThat(series.values())
                        .allSatisfy(x -> assertThat(x).isFinite()));
        for (RunResult r : List.of(v, u)) {
            List<HistogramEvent> h = Engine.local().pastRuns().open(r.runDir()).histograms();
            assertThat(h)
                    .as(r.runDir().toString())
                    .isNotEmpty()
                    .anyMatch(e -> e.quantity().equals(HistogramEvent.GRADIENTS))
                    .anyMatch(e -> e.quantity().equals(HistogramEvent.WEIGHTS));
            Path events;
            try (Stream<Path> files = Files.list(r.runDir().resolve("tensorboard"))) {
                events = files.findFirst().orElseThrow();
            }
            assertThat(TfHistogramReader.read(events))
                    .hasSize(Files.readAllLines(r.runDir().resolve(HistogramsJsonlSink.FILE))
                            .size());
        }
    }

    @Test
    void theGradientNormIsTheAllReducedOneOnOneAndOnTwoWorkers(@TempDir Path dir) throws Exception {
        String mlp = "{\"type\": \"mlp\", \"hidden\": [32, 16], \"dropout\": 0}";
        RunResult one = TrainingRun.open(RunRequest.of(config(dir, "one", mlp, "cpu", 64, "{\"everySteps\": 3}")))
                .runHere();
        RunResult two = TrainingRun.open(RunRequest.of(config(dir, "two", mlp, "cpu:2", 32, "{\"everySteps\": 3}")))
                .runHere();

        assertThat(one.status()).as(one.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<String, Map<Long, Double>> a = layerMetrics(one.runDir());
        Map<String, Map<Long, Double>> b = layerMetrics(two.runDir());
        List<String> gradNorms = a.keySet().stream()
                .filter(k -> k.endsWith("/" + LayerMetrics.Figure.GRAD_NORM.suffix()))
                .toList();
        assertThat(gradNorms).hasSize(3);
        assertThat(b.keySet()).containsAll(gradNorms);
        for (String name : gradNorms) {
            assertThat(b.get(name).keySet()).isEqualTo(a.get(name).keySet()).hasSize(4);
            for (Map.Entry<Long, Double> e : a.get(name).entrySet()) {
                double rel = Math.abs(b.get(name).get(e.getKey()) - e.getValue()) / e.getValue();
                assertThat(rel).as("%s at step %d", name, e.getKey()).isLessThan(1e-6);
            }
        }
    }

    @Test
    void theActivationFiguresOnTwoWorkersAreOneDevicesOverTheSameExamples(@TempDir Path dir) throws Exception {
        // 2 × 16 against 1 × 32: each worker passes its half of the logged examples forward, as one device passes all
        String mlp = "{\"type\": \"mlp\", \"hidden\": [32, 16], \"dropout\": 0}";
        RunResult one = TrainingRun.open(RunRequest.of(config(dir, "one", mlp, "cpu", 32, "{\"everySteps\": 5}")))
                .runHere();
        RunResult two = TrainingRun.open(RunRequest.of(config(dir, "two", mlp, "cpu:2", 16, "{\"everySteps\": 5}")))
                .runHere();

        assertThat(one.status()).as(one.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<String, Map<Long, Double>> a = layerMetrics(one.runDir());
        Map<String, Map<Long, Double>> b = layerMetrics(two.runDir());
        List<String> means = a.keySet().stream()
                .filter(k -> k.endsWith("/" + LayerMetrics.Figure.ACT_MEAN.suffix()))
                .toList();
        assertThat(means).hasSize(3);
        for (String mean : means) {
            String node = mean.substring(
                    0, mean.length() - LayerMetrics.Figure.ACT_MEAN.suffix().length());
            Map<Long, Double> std = a.get(node + LayerMetrics.Figure.ACT_STD.suffix());
            assertThat(b.get(mean).keySet()).isEqualTo(a.get(mean).keySet()).hasSizeGreaterThan(3);
            for (long step : a.get(mean).keySet()) {
                double scale = Math.abs(a.get(mean).get(step)) + std.get(step);
                assertThat(b.get(mean).get(step))
                        .as("%s at step %d", mean, step)
                        .isCloseTo(a.get(mean).get(step), within(1e-4 * scale));
                assertThat(b.get(node + LayerMetrics.Figure.ACT_STD.suffix()).get(step))
                        .as("the standard deviation of %s at step %d", node, step)
                        .isCloseTo(std.get(step), within(1e-4 * scale));
                String zeros = node + LayerMetrics.Figure.ACT_ZERO_FRACTION.suffix();
                assertThat(b.get(zeros).get(step))
                        .as("%s at step %d", zeros, step)
                        .isCloseTo(a.get(zeros).get(step), within(2e-3));
            }
        }
    }

    @Test
    void aLayerWithAFarTooSmallLearningRateIsWarnedAboutAndNoOther(@TempDir Path dir) throws Exception {
        RunResult r = TrainingRun.open(RunRequest.of(config(
                        dir,
                        "slow-b",
                        GRAPH.formatted(", \"lrScale\": 0.0001"),
                        "cpu",
                        32,
                        "{\"everySteps\": 2, \"histogramsEverySteps\": 0, \"patience\": 3}")))
                .runHere();

        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);
        List<String> warnings = warnings(r.runDir());
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0)).startsWith("layer 'b' hardly learns").contains("lrScale");
        Map<String, Map<Long, Double>> m = layerMetrics(r.runDir());
        assertThat(m.get(LayerMetrics.name("b", LayerMetrics.Figure.UPDATE_RATIO))
                        .values())
                .allSatisfy(v -> assertThat(v).isLessThan(1e-5));
        assertThat(m.get(LayerMetrics.name("a", LayerMetrics.Figure.UPDATE_RATIO))
                        .values())
                .allSatisfy(v -> assertThat(v).isGreaterThan(1e-4));
        assertThat(Files.exists(r.runDir().resolve(HistogramsJsonlSink.FILE))).isFalse();
    }

    /** A run shorter than the intervals (the samples' case with the defaults 50 and 500) still shows its layers once. */
    @Test
    void aRunShorterThanTheIntervalsTakesFiguresAndHistogramsAtItsStagesLastStep(@TempDir Path dir) throws Exception {
        RunResult r = TrainingRun.open(RunRequest.of(config(
                        dir,
                        "short",
                        GRAPH.formatted(""),
                        "cpu",
                        32,
                        "{\"everySteps\": 50, \"histogramsEverySteps\": 500}")))
                .runHere();

        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(r.steps()).isEqualTo(24);
        assertThat(layerMetrics(r.runDir()).get(LayerMetrics.name("a", LayerMetrics.Figure.UPDATE_RATIO)))
                .containsOnlyKeys(24L);
        assertThat(Engine.local().pastRuns().open(r.runDir()).histograms())
                .isNotEmpty()
                .allSatisfy(h -> assertThat(h.step()).isEqualTo(24));
    }

    @Test
    void offTakesNothing(@TempDir Path dir) throws Exception {
        RunResult r = TrainingRun.open(RunRequest.of(config(
                        dir,
                        "off",
                        GRAPH.formatted(""),
                        "cpu",
                        32,
                        "{\"everySteps\": 0, \"histogramsEverySteps\": 0}")))
                .runHere();

        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(layerMetrics(r.runDir())).isEmpty();
        assertThat(Files.exists(r.runDir().resolve(HistogramsJsonlSink.FILE))).isFalse();
        assertThat(Engine.local().pastRuns().open(r.runDir()).histograms()).isEmpty();
    }

    @Test
    void theSettingsHaveDefaultsAndABadOneIsLocated(@TempDir Path dir) {
        RunConfig defaults = config(dir, "defaults", GRAPH.formatted(""), "cpu", 32, "{}");
        assertThat(defaults.logging().layers().everySteps()).isEqualTo(50);
        assertThat(defaults.logging().layers().histogramsEverySteps()).isEqualTo(500);
        assertThat(defaults.logging().layers().minUpdateRatio()).isEqualTo(1e-5);

        String digits = TestPaths.repoRoot()
                .resolve("data/digits/digits.csv.gz")
                .toString()
                .replace("\\", "/");
        ValidationResult bad = ConfigParser.parse("""
                {"name": "bad", "model": {"type": "mlp"}, "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10}},
                 "stages": [{"epochs": 1}], "logging": {"layers": {"everySteps": -1, "patience": 0}}}
                """.formatted(digits), dir);
        assertThat(bad.errors())
                .extracting(ConfigProblem::path)
                .contains("logging.layers.everySteps", "logging.layers.patience");

        ValidationResult crossed = ConfigParser.parse("""
                {"name": "crossed", "model": {"type": "mlp"}, "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10}},
                 "stages": [{"epochs": 1}], "logging": {"layers": {"minUpdateRatio": 0.5, "maxUpdateRatio": 0.1}}}
                """.formatted(digits), dir);
        assertThat(crossed.errors()).extracting(ConfigProblem::path).containsExactly("logging.layers.minUpdateRatio");
    }
}
