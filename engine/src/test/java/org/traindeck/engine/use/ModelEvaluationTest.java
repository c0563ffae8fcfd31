package org.traindeck.engine.use;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.ClassFigures;
import org.traindeck.engine.api.runs.Evaluation;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * {@code evaluate} on a short real run of each task: on the validation data its figures are the ones training's own
 * validation recorded for the same weights (computed by other code, batch by batch), and evaluation.json holds them.
 */
class ModelEvaluationTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static String data(String file) {
        return TestPaths.repoRoot().resolve("data").resolve(file).toString().replace("\\", "/");
    }

    private RunResult train(String json) throws IOException {
        RunResult r = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse(json, dir).orThrow()))
                .runHere();
        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);
        return r;
    }

    /** The last value of each validation metric training recorded: the stage-end checkpoint's weights. */
    private static Map<String, Double> lastValidation(Path runDir) throws IOException {
        Map<String, Double> last = new TreeMap<>();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            JsonNode e = JSON.readTree(line);
            String name = e.path("name").asText("");
            if (name.startsWith("val/")) {
                last.put(name, e.get("value").asDouble());
            }
        }
        return last;
    }

    private static void assertSameAsTraining(Evaluation e, RunResult r, String... names) throws IOException {
        Map<String, Double> recorded = lastValidation(r.runDir());
        for (String name : names) {
            assertThat(e.figures().get(name))
                    .as(name)
                    .isCloseTo(recorded.get(name), within(1e-5 * Math.max(1, Math.abs(recorded.get(name)))));
        }
    }

    @Test
    void classificationOnTheValidationSplitGivesTrainingsFiguresAndAConsistentMatrix() throws Exception {
        RunResult r = train("""
                {"name": "digits", "outputDir": "out", "seed": 3,
                 "model": {"type": "mlp", "hidden": [32]},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "normalize": "standardize", "limit": 500},
                          "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.01}}],
                 "checkpoint": {"keepBestPerStage": false}}
                """.formatted(data("digits/digits.csv.gz")));

        Evaluation e = ModelEvaluation.run(r.runDir(), null, false, done -> {});

        assertThat(e.task()).isEqualTo(Task.CLASSIFICATION);
        assertThat(e.data()).contains("validation split").contains("no data.test");
        assertThat(e.samples()).isEqualTo(100);
        assertSameAsTraining(e, r, "val/loss", "val/accuracy");
        assertThat(e.figures()).containsKey("val/top5_accuracy");
        // the matrix and the per-class table, recomputed from the matrix by hand
        List<List<Long>> m = e.confusionMatrix();
        long total = m.stream().flatMap(List::stream).mapToLong(Long::longValue).sum();
        long trace = 0;
        for (int k = 0; k < 10; k++) {
            trace += m.get(k).get(k);
        }
        assertThat(total).isEqualTo(100);
        assertThat((double) trace / total).isCloseTo(e.figures().get("val/accuracy"), within(1e-12));
        for (ClassFigures c : e.perClass()) {
            long support = m.get(c.id()).stream().mapToLong(Long::longValue).sum();
            long predicted = m.stream().mapToLong(row -> row.get(c.id())).sum();
            long tp = m.get(c.id()).get(c.id());
            assertThat(c.support()).isEqualTo(support);
            if (predicted > 0) {
                assertThat(c.precision()).isCloseTo((double) tp / predicted, within(1e-12));
            }
            if (support > 0 && predicted > 0 && tp > 0) {
                double p = (double) tp / predicted;
                double rc = (double) tp / support;
                assertThat(c.f1()).isCloseTo(2 * p * rc / (p + rc), within(1e-12));
            }
        }
        JsonNode written = JSON.readTree(r.runDir().resolve("evaluation.json").toFile());
        assertThat(written.path("figures").path("val/accuracy").asDouble())
                .isEqualTo(e.figures().get("val/accuracy"));
        assertThat(written.path("confusionMatrix")).hasSize(10);
        assertThat(written.path("confusionMatrix").get(3).get(3).asLong())
                .isEqualTo(m.get(3).get(3));
        assertThat(written.path("perClass")).hasSize(10);
        try (var files = Files.list(r.runDir())) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".tmp-"));
        }
    }

    @Test
    void aTestSourceIsReadAgainstTheTrainingDataAndNamedInTheFigures() throws Exception {
        Path test = dir.resolve("test.csv");
        List<String> rows = new java.util.ArrayList<>();
        try (var in = new java.util.zip.GZIPInputStream(Files.newInputStream(Path.of(data("digits/digits.csv.gz"))))) {
            rows.addAll(
                    new String(in.readAllBytes()).lines().skip(1500).limit(60).toList());
        }
        Files.write(test, rows);
        RunResult r = train("""
                {"name": "digits-test", "outputDir": "out", "seed": 3,
                 "model": {"type": "mlp", "hidden": [32]},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "normalize": "minmax", "limit": 400},
                          "validationSplit": 0.2, "test": {"type": "csv", "path": "test.csv", "numClasses": 10}},
                 "stages": [{"epochs": 1, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                """.formatted(data("digits/digits.csv.gz")));

        Evaluation own = ModelEvaluation.run(r.runDir(), null, false, done -> {});
        assertThat(own.data()).isEqualTo("data.test");
        assertThat(own.samples()).isEqualTo(60);

        Evaluation given = ModelEvaluation.run(
                r.runDir(),
                "{\"type\": \"csv\", \"path\": \"" + test.toString().replace("\\", "/") + "\", \"numClasses\": 10}",
                false,
                done -> {});
        assertThat(given.figures()).isEqualTo(own.figures());

        // a source in a .json file, its path relative to that file's folder
        Path sources = Files.createDirectories(dir.resolve("sources"));
        Files.writeString(
                sources.resolve("test-source.json"),
                "{\"type\": \"csv\", \"path\": \"../test.csv\", \"numClasses\": 10}");
        assertThat(ModelEvaluation.run(
                                r.runDir(), sources.resolve("test-source.json").toString(), false, d -> {})
                        .figures())
                .isEqualTo(own.figures());
        // a run config whose data.test names it, and one that has none
        Path config = dir.resolve("with-test.json");
        Files.writeString(config, Files.readString(r.runDir().resolve("config.json")));
        Evaluation fromConfig = ModelEvaluation.run(r.runDir(), config.toString(), false, d -> {});
        assertThat(fromConfig.figures()).isEqualTo(own.figures());
        assertThat(fromConfig.data()).isEqualTo("--data " + config);
        Path noTest = dir.resolve("no-test.json");
        Files.writeString(noTest, Files.readString(config).replaceAll("(?s),\\s*\"test\"\\s*:\\s*\\{[^}]*}", ""));
        assertThatThrownBy(() -> ModelEvaluation.run(r.runDir(), noTest.toString(), false, d -> {}))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("has no data.test");
        assertThatThrownBy(() -> ModelEvaluation.run(r.runDir(), "{\"type\": 3", false, d -> {}))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("not valid JSON");

        assertThatThrownBy(() -> ModelEvaluation.run(
                        r.runDir(), "{\"type\": \"csv\", \"path\": \"missing.csv\"}", false, d -> {}))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("--data.path")
                .hasMessageContaining("missing.csv");
        assertThatThrownBy(() -> ModelEvaluation.run(
                        r.runDir(),
                        "{\"type\": \"text\", \"path\": \"" + test.toString().replace("\\", "/")
                                + "\", \"context\": 8}",
                        false,
                        d -> {}))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("sequence");
    }

    @Test
    void segmentationGivesPixelAccuracyMeanIouAndPerClassIou() throws Exception {
        RunResult r = train("""
                {"name": "unet", "outputDir": "out", "seed": 7,
                 "model": {"type": "graph", "layers": [
                   {"name": "c1", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"},
                   {"name": "down", "type": "maxPool2d", "size": 2},
                   {"name": "c2", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"},
                   {"name": "up", "type": "upsample2d", "size": 2},
                   {"name": "skip", "type": "concat", "inputs": ["up", "c1"]},
                   {"name": "c3", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"}]},
                 "data": {"train": {"type": "numpy", "task": "segmentation", "inputs": "%1$s:x", "targets": "%1$s:y", "numClasses": 3,
                          "scale": 0.00392156862745098, "limit": 80}, "validationSplit": 0.25},
                 "stages": [{"epochs": 2, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.003}}],
                 "checkpoint": {"keepBestPerStage": false}}
                """.formatted(data("shapes/shapes.npz")));

        Evaluation e = ModelEvaluation.run(r.runDir(), null, false, done -> {});

        assertSameAsTraining(e, r, "val/loss", "val/pixel_accuracy", "val/mean_iou");
        double mean = e.perClass().stream()
                .filter(c -> !Double.isNaN(c.iou()))
                .mapToDouble(ClassFigures::iou)
                .average()
                .orElseThrow();
        assertThat(mean).isCloseTo(e.figures().get("val/mean_iou"), within(1e-12));
        long pixels = e.confusionMatrix().stream()
                .flatMap(List::stream)
                .mapToLong(Long::longValue)
                .sum();
        assertThat(pixels).isEqualTo(e.samples() * 32 * 32);
        JsonNode written = JSON.readTree(r.runDir().resolve("evaluation.json").toFile());
        assertThat(written.path("perClassIoU")).hasSize(3);
    }

    @Test
    void reconstructionGivesMseMaeAndPsnr() throws Exception {
        RunResult r = train("""
                {"name": "volumes", "outputDir": "out", "seed": 7,
                 "model": {"type": "graph", "layers": [
                   {"name": "enc", "type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"},
                   {"name": "dec", "type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"}]},
                 "data": {"train": {"type": "numpy", "task": "reconstruction", "inputs": "%s:x", "scale": 0.00392156862745098,
                          "limit": 40}, "validationSplit": 0.25},
                 "stages": [{"epochs": 1, "batchSize": 10, "optimizer": {"type": "adam", "learningRate": 0.003}}]}
                """.formatted(data("volumes/volumes.npz")));

        Evaluation e = ModelEvaluation.run(r.runDir(), null, false, done -> {});

        assertThat(e.task()).isEqualTo(Task.RECONSTRUCTION);
        assertSameAsTraining(e, r, "val/loss", "val/mse", "val/psnr");
        assertThat(e.figures()).containsKey("val/mae");
        assertThat(e.confusionMatrix()).isNull();
    }

    @Test
    void aTextModelGivesLossPerTokenPerplexityAndAccuracy() throws Exception {
        RunResult r = train("""
                {"name": "gpt", "outputDir": "out", "seed": 7,
                 "model": {"type": "gpt", "width": 16, "depth": 1, "heads": 2},
                 "data": {"train": {"type": "text", "path": "%s", "context": 16, "limit": 300}, "validationSplit": 0.1},
                 "stages": [{"epochs": 1, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.003}}]}
                """.formatted(data("text/gpl-3.txt")));

        Evaluation e = ModelEvaluation.run(r.runDir(), null, false, done -> {});

        assertThat(e.task()).isEqualTo(Task.SEQUENCE);
        assertSameAsTraining(e, r, "val/loss", "val/perplexity", "val/accuracy");
        assertThat(e.figures().get("val/perplexity"))
                .isCloseTo(Math.exp(e.figures().get("val/loss")), within(1e-9));
        assertThat(e.perClass()).isEmpty();
    }

    @Test
    void regressionGivesMseMaeAndR2() throws Exception {
        RunResult r = train("""
                {"name": "reg", "outputDir": "out", "seed": 7,
                 "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "task": "regression", "samples": 300, "features": 4, "noise": 0.1},
                          "validationSplit": 0.2},
                 "stages": [{"epochs": 3, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                """);

        Evaluation e = ModelEvaluation.run(r.runDir(), null, false, done -> {});

        assertThat(e.task()).isEqualTo(Task.REGRESSION);
        assertSameAsTraining(e, r, "val/loss", "val/mse", "val/mae");
        assertThat(e.figures().get("val/r2")).isLessThanOrEqualTo(1.0);
    }

    @Test
    void aRunWithoutTestOrValidationDataIsToldToGiveSome() throws Exception {
        RunResult r = train("""
                {"name": "noval", "outputDir": "out", "seed": 7,
                 "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "task": "classification", "samples": 100, "features": 4, "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                """);

        assertThatThrownBy(() -> ModelEvaluation.run(r.runDir(), null, false, d -> {}))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("data.test")
                .hasMessageContaining("--data");
        assertThat(r.runDir().resolve("evaluation.json")).doesNotExist();
    }
}
