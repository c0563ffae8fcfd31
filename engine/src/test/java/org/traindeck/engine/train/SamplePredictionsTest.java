package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.sinks.ProtoFields;
import org.traindeck.engine.sinks.SamplesFileSink;
import org.traindeck.engine.sinks.TfEventFileReader;

/** Sample predictions in real runs: a classifier, the U-Net sample's network and a GPT, each on a little data. */
class SamplePredictionsTest {

    private static final String SHAPES =
            TestPaths.repoRoot().resolve("data/shapes/shapes.npz").toString().replace("\\", "/");
    private static final String TEXT =
            TestPaths.repoRoot().resolve("data/text/gpl-3.txt").toString().replace("\\", "/");

    @Test
    void aClassifierShowsTheSameExamplesEachEpochWithTheirTopClasses(@TempDir Path dir) throws IOException {
        Run run = run(dir, """
                {"name": "cls", "outputDir": "out", "seed": 5, "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 120, "imageShape": [8, 8, 1], "numClasses": 3},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": 2, "batchSize": 30}],
                 "logging": {"samples": {"count": 4}}}
                """);

        assertThat(run.samples).hasSize(2);
        assertThat(run.samples.get(0).samples())
                .extracting(SamplesEvent.Sample::index)
                .hasSize(4)
                .isEqualTo(run.samples.get(1).samples().stream()
                        .map(SamplesEvent.Sample::index)
                        .toList());
        for (SamplesEvent.Sample s : run.samples.get(1).samples()) {
            assertThat(s.truth()).matches("[0-2]");
            assertThat(s.top()).hasSize(3);
            assertThat(s.top().stream()
                            .mapToDouble(SamplesEvent.Score::probability)
                            .sum())
                    .isCloseTo(1, within(1e-4));
            assertThat(s.predicted()).isEqualTo(s.top().get(0).label());
            assertThat(s.pictures())
                    .singleElement()
                    .satisfies(p -> assertThat(decode(p).getWidth()).isEqualTo(8));
        }
        assertThat(run.samples.get(1).step()).isGreaterThan(run.samples.get(0).step());

        List<JsonNode> index = index(run.dir);
        assertThat(index).hasSize(2);
        JsonNode first = index.get(1).get("samples").get(0);
        assertThat(run.dir
                        .resolve(SamplesFileSink.FOLDER)
                        .resolve(first.get("pictures").get(0).get("file").asText()))
                .isRegularFile();
        assertThat(first.get("top")).hasSize(3);

        List<String> tags = new ArrayList<>();
        for (byte[] record : TfEventFileReader.records(tensorboardFile(run.dir))) {
            ProtoFields e = ProtoFields.parse(record);
            if (e.has(5)) {
                ProtoFields value = e.message(5).message(1);
                if (value.has(4)) {
                    tags.add(value.string(1));
                }
            }
        }
        assertThat(tags).hasSize(8).contains("samples/" + first.get("index").asInt() + "/input");
        assertThat(Files.readString(run.dir.resolve("train.log")))
                .contains(
                        "sample predictions: validation examples [", "sample predictions: 4 example(s) predicted in ");

        // the run opened from its folder later shows the same predictions, pictures and all
        List<SamplesEvent> past = Engine.local().pastRuns().open(run.dir).samples();
        assertThat(past).hasSize(2);
        assertThat(past.get(1).step()).isEqualTo(run.samples.get(1).step());
        assertThat(past.get(1).samples()).isEqualTo(run.samples.get(1).samples());
    }

    @Test
    void theUnetSampleShowsItsImagesWithTheTrueAndPredictedMasks(@TempDir Path dir) throws IOException {
        String unet = new ObjectMapper()
                .readTree(TestPaths.repoRoot()
                        .resolve("sample-configs/shapes-unet.json")
                        .toFile())
                .get("model")
                .toString();
        Run run = run(dir, """
                {"name": "unet", "outputDir": "out", "seed": 3, "model": %s,
                 "data": {"train": {"type": "numpy", "task": "segmentation", "inputs": "%s:x", "targets": "%s:y", "numClasses": 3,
                                    "scale": 0.00392156862745098, "limit": 40}, "validationSplit": 0.2},
                 "stages": [{"epochs": 1, "batchSize": 8}],
                 "logging": {"samples": {"count": 2}}, "checkpoint": {"keepBestPerStage": false}}
                """.formatted(unet, SHAPES, SHAPES));

        assertThat(run.samples).singleElement().satisfies(e -> {
            assertThat(e.task()).isEqualTo("segmentation");
            assertThat(e.samples()).hasSize(2).allSatisfy(s -> {
                assertThat(s.pictures())
                        .extracting(SamplesEvent.Picture::label)
                        .containsExactly("input", "true", "predicted");
                assertThat(s.pictures())
                        .allSatisfy(p -> assertThat(decode(p).getWidth()).isEqualTo(32));
                assertThat(s.predicted()).startsWith("pixel accuracy ");
            });
        });
    }

    @Test
    void aGptContinuesItsFixedPrompts(@TempDir Path dir) throws IOException {
        Run run = run(dir, """
                {"name": "gpt", "outputDir": "out", "seed": 7, "model": {"type": "gpt", "width": 16, "depth": 1, "heads": 2},
                 "data": {"train": {"type": "text", "path": "%s", "context": 16, "limit": 200}, "validationSplit": 0.1},
                 "stages": [{"epochs": 2, "batchSize": 16}],
                 "logging": {"samples": {"count": 8}}}
                """.formatted(TEXT));

        assertThat(run.samples).hasSize(2);
        String licence = Files.readString(TestPaths.repoRoot().resolve("data/text/gpl-3.txt"));
        for (SamplesEvent e : run.samples) {
            // a text model continues at most four prompts: each costs a forward pass per character
            assertThat(e.samples()).hasSize(4).allSatisfy(s -> {
                assertThat(s.prompt()).hasSize(8);
                assertThat(licence).contains(s.prompt());
                assertThat(s.text()).hasSize(48);
                assertThat(s.pictures()).isEmpty();
            });
        }
        assertThat(run.samples.get(0).samples())
                .extracting(SamplesEvent.Sample::prompt)
                .isEqualTo(run.samples.get(1).samples().stream()
                        .map(SamplesEvent.Sample::prompt)
                        .toList());
        assertThat(index(run.dir).get(0).get("samples").get(0).get("text").asText())
                .hasSize(48);
    }

    @Test
    void theVolumeAutoencoderShowsItsMiddleSlicesBesideTheirReconstructions(@TempDir Path dir) throws IOException {
        String model = new ObjectMapper()
                .readTree(TestPaths.repoRoot()
                        .resolve("sample-configs/volumes-autoencoder.json")
                        .toFile())
                .get("model")
                .toString();
        String volumes = TestPaths.repoRoot()
                .resolve("data/volumes/volumes.npz")
                .toString()
                .replace("\\", "/");
        Run run = run(dir, """
                {"name": "vol", "outputDir": "out", "seed": 7, "model": %s,
                 "data": {"train": {"type": "numpy", "task": "reconstruction", "inputs": "%s:x", "scale": 0.00392156862745098,
                                    "limit": 20}, "validationSplit": 0.2},
                 "stages": [{"epochs": 1, "batchSize": 8}],
                 "logging": {"samples": {"count": 2}}, "checkpoint": {"keepBestPerStage": false}}
                """.formatted(model, volumes));

        assertThat(run.samples)
                .singleElement()
                .satisfies(e -> assertThat(e.samples()).hasSize(2).allSatisfy(s -> {
                    assertThat(s.pictures())
                            .extracting(SamplesEvent.Picture::label)
                            .containsExactly(
                                    "input-axial",
                                    "reconstruction-axial",
                                    "input-coronal",
                                    "reconstruction-coronal",
                                    "input-sagittal",
                                    "reconstruction-sagittal");
                    assertThat(s.predicted()).startsWith("MSE ");
                }));
    }

    @Test
    void withoutTheSectionNothingIsPredicted(@TempDir Path dir) throws IOException {
        Run run = run(dir, """
                {"name": "off", "outputDir": "out", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "synthetic", "samples": 40, "features": 3}, "validationSplit": 0.25},
                 "stages": [{"epochs": 1}]}
                """);

        assertThat(run.samples).isEmpty();
        assertThat(run.dir.resolve(SamplesFileSink.FOLDER)).doesNotExist();
    }

    private record Run(Path dir, List<SamplesEvent> samples) {}

    private static Run run(Path dir, String json) throws IOException {
        TrainingRun run =
                TrainingRun.open(RunRequest.of(ConfigParser.parse(json, dir).orThrow()));
        List<SamplesEvent> samples = Collections.synchronizedList(new ArrayList<>());
        run.subscribe(
                (EngineEvent e) -> {
                    if (e instanceof SamplesEvent s) {
                        samples.add(s);
                    }
                },
                EventBus.Delivery.LOSSLESS);
        RunResult result = run.runHere();
        assertThat(result.status()).as(result.message()).isEqualTo(RunResult.Status.FINISHED);
        return new Run(result.runDir(), List.copyOf(samples));
    }

    private static List<JsonNode> index(Path runDir) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> lines = new ArrayList<>();
        for (String line :
                Files.readAllLines(runDir.resolve(SamplesFileSink.FOLDER).resolve(SamplesFileSink.INDEX))) {
            lines.add(json.readTree(line));
        }
        return lines;
    }

    private static Path tensorboardFile(Path runDir) throws IOException {
        try (Stream<Path> files = Files.list(runDir.resolve("tensorboard"))) {
            return files.findFirst().orElseThrow();
        }
    }

    private static BufferedImage decode(SamplesEvent.Picture p) {
        try {
            return ImageIO.read(new ByteArrayInputStream(p.png()));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
