package org.traindeck.engine.use.predict;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.outputs.Sampling;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.use.TrainedModel;

/**
 * Every sample config, cut to one epoch on a few samples and trained, then predicted on: NumPy rows of the shape its
 * model takes (and images where it takes images, a prompt for the GPT), giving one row of outputs per input.
 */
class SampleConfigsPredictTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int N = 3;

    @TempDir
    Path dir;

    private Path trainShortened(String sample) throws Exception {
        Path samples = TestPaths.repoRoot().resolve("sample-configs");
        ObjectNode config = (ObjectNode) JSON.readTree(Files.readString(samples.resolve(sample + ".json")));
        config.put("outputDir", dir.resolve("runs").toString());
        ObjectNode data = (ObjectNode) config.get("data");
        for (String role : List.of("train", "validation")) {
            if (data.get(role) instanceof ObjectNode source) {
                if (source.path("type").asText().equals("synthetic")) {
                    source.put("samples", 200);
                } else {
                    source.put("limit", source.path("type").asText().equals("text") ? 120 : 48);
                }
                if (source.path("path").asText().startsWith("/usr/share/datasets")) {
                    Assumptions.assumeTrue(
                            Files.isDirectory(Path.of(source.path("path").asText())),
                            "the Debian dataset " + source.path("path").asText() + " is not installed here");
                }
            }
        }
        config.withArray("stages").forEach(stage -> ((ObjectNode) stage).put("epochs", 1));
        RunResult result = TrainingRun.open(RunRequest.of(ConfigParser.parse(JSON.writeValueAsString(config), samples)
                        .orThrow()))
                .runHere();
        assertThat(result.status()).as(sample).isEqualTo(RunResult.Status.FINISHED);
        return result.runDir();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "digits-graph",
                "digits-lenet-two-stages",
                "digits-mlp",
                "fashion-mnist-lenet",
                "fashion-vit",
                "shapes-unet",
                "synthetic-quick",
                "text-gpt",
                "volumes-autoencoder"
            })
    void predictsOnEverySampleConfigsRun(String sample) throws Exception {
        Path run = trainShortened(sample);
        TrainedModel trained = TrainedModel.open(run, false);
        PredictionModel model = PredictionModel.of(trained);
        if (trained.vocabulary() != null) {
            PredictionReport report = PredictionJob.run(
                    model,
                    PredictionRequest.continuing(run, false, "the ", new Sampling(20, 0.8, 5, 1), null, false),
                    p -> {});
            assertThat(report.continuation()
                            .codePointCount(0, report.continuation().length()))
                    .isEqualTo(20);
            return;
        }
        boolean channelsLast = model.source() instanceof NumpySource n && n.channelsLast();
        long[] sampleShape =
                NumpyInputs.accepted(model, ArrayLayout.of(channelsLast)).get(0);
        long[] shape = new long[sampleShape.length + 1];
        shape[0] = N;
        System.arraycopy(sampleShape, 0, shape, 1, sampleShape.length);
        float[] values = new float[(int) Arrays.stream(shape).reduce(1, Math::multiplyExact)];
        Random random = new Random(1);
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextInt(16);
        }
        Path in = dir.resolve("in.npy");
        TestNpy.float32(in, shape, values);
        Path out = dir.resolve("out.npy");
        PredictionJob.run(model, PredictionRequest.onInputs(run, false, List.of(in), out, false, false), p -> {});
        assertThat(TestNpy.shape(out)[0]).isEqualTo(N);
        for (float v : TestNpy.floats(out)) {
            assertThat(v).isFinite();
        }
        Task task = model.task();
        assertThat(Files.exists(dir.resolve("out.classes.npy")))
                .isEqualTo(task == Task.CLASSIFICATION || task == Task.SEGMENTATION);

        if (model.shape() instanceof SampleShape.Image && !(model.source() instanceof CsvSource)) {
            Path picture = dir.resolve("picture.png");
            ImageIO.write(new BufferedImage(40, 30, BufferedImage.TYPE_INT_RGB), "png", picture.toFile());
            Path images = task == Task.SEGMENTATION
                    ? dir.resolve("masks")
                    : dir.resolve(task == Task.CLASSIFICATION ? "out.csv" : "out2.npy");
            PredictionReport report = PredictionJob.run(
                    model,
                    PredictionRequest.onInputs(run, false, List.of(picture), images, false, task == Task.SEGMENTATION),
                    p -> {});
            assertThat(report.count()).isEqualTo(1);
            assertThat(images).exists();
        }
    }
}
