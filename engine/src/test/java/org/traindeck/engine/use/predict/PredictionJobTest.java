package org.traindeck.engine.use.predict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.ImageFolderReader;
import org.traindeck.engine.outputs.PredictionInputException;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.use.TrainedModel;

/**
 * {@code predict} on short real runs of each kind of model (segmentation and reconstruction on NumPy bytes with a
 * scale, regression on rows, classification on an image folder): the files hold exactly the trained model's outputs
 * on the same inputs converted as training converts them, and every bad input or output is refused, nothing written.
 */
class PredictionJobTest {

    private static final int N = 5;
    private static final float SCALE = 1 / 255f;

    @TempDir
    static Path dir;

    private static Path shapes;
    private static Path segmentation;
    private static Path reconstruction;
    private static Path regression;
    private static Path volumes;
    private static Path images;
    private static Path imageFolder;

    private static Path train(String json) throws Exception {
        RunResult result = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse(json, dir).orThrow()))
                .runHere();
        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        return result.runDir();
    }

    private static String numpyRun(String name, String task, String targets) {
        return """
                {"name": "%s", "outputDir": "out", "seed": 3,
                 "model": {"type": "graph", "layers": [{"name": "c1", "type": "conv2d", "filters": 6, "kernel": 3, "activation": "relu"}]},
                 "data": {"train": {"type": "numpy", "task": "%s", "inputs": "%s:x", %s "numClasses": 3, "scale": %s, "limit": 64},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": 1, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.003}}]}
                """.formatted(name, task, shapes, targets, SCALE)
                .replace("\"numClasses\": 3, ", task.equals("segmentation") ? "\"numClasses\": 3, " : "");
    }

    @BeforeAll
    static void trainOneRunOfEachKind() throws Exception {
        shapes = TestPaths.repoRoot().resolve("data/shapes/shapes.npz");
        segmentation = train(numpyRun("seg", "segmentation", "\"targets\": \"" + shapes + ":y\","));
        reconstruction = train(numpyRun("rec", "reconstruction", ""));
        volumes = train("""
                {"name": "vol", "outputDir": "out", "seed": 3,
                 "model": {"type": "graph", "layers": [{"name": "c1", "type": "conv3d", "filters": 2, "kernel": 3, "activation": "relu"}]},
                 "data": {"train": {"type": "numpy", "task": "reconstruction", "inputs": "%s:x", "scale": %s, "limit": 24},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": 1, "batchSize": 6}]}
                """.formatted(TestPaths.repoRoot().resolve("data/volumes/volumes.npz"), SCALE));
        regression = train("""
                {"name": "reg", "outputDir": "out", "seed": 3, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "task": "regression", "samples": 200, "features": 6}, "validationSplit": 0.25},
                 "stages": [{"epochs": 1, "batchSize": 25}]}
                """);
        imageFolder = dir.resolve("pictures");
        Random random = new Random(11);
        for (String c : List.of("cats", "dogs")) {
            Files.createDirectories(imageFolder.resolve(c));
            for (int i = 0; i < 6; i++) {
                BufferedImage image = new BufferedImage(12, 10, BufferedImage.TYPE_INT_RGB);
                for (int y = 0; y < 10; y++) {
                    for (int x = 0; x < 12; x++) {
                        image.setRGB(x, y, random.nextInt(1 << 24));
                    }
                }
                ImageIO.write(
                        image,
                        "png",
                        imageFolder.resolve(c).resolve(c + i + ".png").toFile());
            }
        }
        images = train("""
                {"name": "img", "outputDir": "out", "seed": 3, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "images", "path": "%s", "width": 8, "height": 8, "channels": 3}, "validationSplit": 0.25},
                 "stages": [{"epochs": 1, "batchSize": 4}]}
                """.formatted(imageFolder));
    }

    private static PredictionReport predict(Path run, List<Path> inputs, Path out, boolean force, boolean overlays)
            throws Exception {
        return PredictionJob.run(
                PredictionModel.of(TrainedModel.open(run, false)),
                PredictionRequest.onInputs(run, false, inputs, out, force, overlays),
                piece -> {});
    }

    /** The first N shapes as the bytes they are stored as, [N, 32, 32, 1]. */
    private static Path shapeBytes(String name) throws IOException {
        float[] raw = TestNpy.firstSamples(shapes, "x", N);
        byte[] bytes = new byte[raw.length];
        for (int i = 0; i < raw.length; i++) {
            bytes[i] = (byte) raw[i];
        }
        Path file = dir.resolve(name);
        TestNpy.uint8(file, new long[] {N, 32, 32, 1}, bytes);
        return file;
    }

    private static INDArray expected(Path run, float[] x, long... shape) throws Exception {
        return TrainedModel.open(run, false).output(Nd4j.create(x, shape, DataType.FLOAT))[0];
    }

    private static float[] scaled(float[] raw) {
        float[] x = raw.clone();
        for (int i = 0; i < x.length; i++) {
            x[i] *= SCALE;
        }
        return x;
    }

    @Test
    void segmentationWritesTheModelsProbabilitiesAndItsArgmaxMasks() throws Exception {
        Path out = dir.resolve("seg-out/masks.npy");
        PredictionReport report = predict(segmentation, List.of(shapeBytes("seg-in.npy")), out, false, false);

        INDArray want = expected(segmentation, scaled(TestNpy.firstSamples(shapes, "x", N)), N, 1, 32, 32);
        // channels last, as the input bytes were
        INDArray perPixel = want.permute(0, 2, 3, 1).dup('c');
        assertThat(TestNpy.shape(out)).containsExactly(N, 32, 32, 3);
        assertThat(TestNpy.floats(out))
                .containsExactly(perPixel.reshape(perPixel.length()).toFloatVector(), within(1e-6f));
        Path classes = dir.resolve("seg-out/masks.classes.npy");
        assertThat(TestNpy.shape(classes)).containsExactly(N, 32, 32);
        assertThat(TestNpy.longs(classes))
                .containsExactly(want.argMax(1).reshape(want.length() / 3).toLongVector());
        assertThat(report.written()).containsExactly(out, classes);
        assertThat(report.count()).isEqualTo(N);
    }

    @Test
    void imagesOfAnotherSourceGiveTheSameMasksAsItsBytesAndPngsHoldTheClassIds() throws Exception {
        float[] raw = TestNpy.firstSamples(shapes, "x", N);
        Path pngs = Files.createDirectories(dir.resolve("shape-pngs"));
        for (int i = 0; i < N; i++) {
            BufferedImage image = new BufferedImage(32, 32, BufferedImage.TYPE_INT_RGB);
            for (int p = 0; p < 32 * 32; p++) {
                int v = (int) raw[i * 1024 + p];
                image.setRGB(p % 32, p / 32, v << 16 | v << 8 | v);
            }
            ImageIO.write(image, "png", pngs.resolve("shape" + i + ".png").toFile());
        }
        Path folder = dir.resolve("seg-masks");
        predict(segmentation, List.of(pngs), folder, false, true);

        long[] classes = expected(segmentation, scaled(raw), N, 1, 32, 32)
                .argMax(1)
                .reshape((long) N * 1024)
                .toLongVector();
        try (Stream<Path> s = Files.list(folder)) {
            assertThat(s.map(p -> p.getFileName().toString()).sorted().toList())
                    .hasSize(2 * N)
                    .contains("shape0.png", "shape0.overlay.png");
        }
        for (int i = 0; i < N; i++) {
            BufferedImage mask =
                    ImageIO.read(folder.resolve("shape" + i + ".png").toFile());
            for (int p = 0; p < 1024; p++) {
                assertThat(mask.getRaster().getSample(p % 32, p / 32, 0))
                        .as("image %d pixel %d", i, p)
                        .isEqualTo((int) classes[i * 1024 + p]);
            }
        }
    }

    @Test
    void reconstructionAndRegressionWriteTheModelsOutputsWithoutClasses() throws Exception {
        Path out = dir.resolve("rec.npy");
        predict(reconstruction, List.of(shapeBytes("rec-in.npy")), out, false, false);
        INDArray want = expected(reconstruction, scaled(TestNpy.firstSamples(shapes, "x", N)), N, 1, 32, 32);
        assertThat(TestNpy.shape(out)).containsExactly(N, 32, 32, 1);
        assertThat(TestNpy.floats(out))
                .containsExactly(want.dup('c').reshape(want.length()).toFloatVector(), within(1e-6f));
        assertThat(dir.resolve("rec.classes.npy")).doesNotExist();

        float[] rows = new float[4 * 6];
        Random random = new Random(5);
        for (int i = 0; i < rows.length; i++) {
            rows[i] = (float) random.nextGaussian();
        }
        Path in = dir.resolve("reg-in.npy");
        TestNpy.float32(in, new long[] {4, 6}, rows);
        Path values = dir.resolve("reg.npy");
        predict(regression, List.of(in), values, false, false);
        assertThat(TestNpy.shape(values)).containsExactly(4, 1);
        assertThat(TestNpy.floats(values))
                .containsExactly(expected(regression, rows, 4, 6).toFloatVector(), within(1e-6f));
    }

    @Test
    void volumesGiveTheirReconstructionsInTheirInputsLayout() throws Exception {
        Path npz = TestPaths.repoRoot().resolve("data/volumes/volumes.npz");
        float[] raw = TestNpy.firstSamples(npz, "x", 3);
        byte[] bytes = new byte[raw.length];
        for (int i = 0; i < raw.length; i++) {
            bytes[i] = (byte) raw[i];
        }
        Path in = dir.resolve("vol-in.npy");
        TestNpy.uint8(in, new long[] {3, 16, 16, 16, 1}, bytes);
        Path out = dir.resolve("vol.npy");
        predict(volumes, List.of(in), out, false, false);
        INDArray want = expected(volumes, scaled(raw), 3, 1, 16, 16, 16);
        assertThat(TestNpy.shape(out)).containsExactly(3, 16, 16, 16, 1);
        assertThat(TestNpy.floats(out))
                .containsExactly(want.dup('c').reshape(want.length()).toFloatVector(), within(1e-6f));
        assertThatThrownBy(() -> predict(volumes, List.of(in), dir.resolve("vol-pngs"), false, false))
                .hasMessageContaining("neither a .npy");
        assertThatThrownBy(() -> predict(volumes, List.of(imageFolder), out.resolveSibling("v2.npy"), false, false))
                .hasMessageContaining("[N, 16, 16, 16, 1]");
    }

    @Test
    void aFolderOfImagesGivesACsvOfClassesAsTheImageSourceReadsThem() throws Exception {
        Path out = dir.resolve("classes.csv");
        PredictionReport report = predict(images, List.of(imageFolder), out, false, false);

        List<Path> files;
        try (Stream<Path> s = Files.walk(imageFolder)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        float[] x = new float[files.size() * 192];
        for (int i = 0; i < files.size(); i++) {
            ImageFolderReader.writePixels(
                    ImageFolderReader.resize(ImageIO.read(files.get(i).toFile()), 8, 8), 3, x, i * 192);
        }
        INDArray want = expected(images, x, files.size(), 192);
        List<String> lines = Files.readAllLines(out);
        assertThat(lines.get(0)).isEqualTo("input,class,name,probability,p:cats,p:dogs");
        assertThat(lines).hasSize(files.size() + 1);
        for (int i = 0; i < files.size(); i++) {
            String[] cells = lines.get(i + 1).split(",");
            int best = want.getRow(i).argMax().getInt(0);
            assertThat(cells[0]).isEqualTo(files.get(i).toString());
            assertThat(Integer.parseInt(cells[1])).isEqualTo(best);
            assertThat(cells[2]).isEqualTo(best == 0 ? "cats" : "dogs");
            assertThat(Float.parseFloat(cells[4])).isCloseTo(want.getFloat(i, 0), within(1e-5f));
            assertThat(Float.parseFloat(cells[5])).isCloseTo(want.getFloat(i, 1), within(1e-5f));
        }
        assertThat(report.lines().get(0)).contains(files.get(0).getFileName().toString());
    }

    @Test
    void inputsOfTheWrongShapeOrTypeOrWithNanAreRefusedByNameAndNothingIsWritten() throws Exception {
        Path out = dir.resolve("refused/out.npy");
        Path rgb = dir.resolve("rgb.npy");
        TestNpy.uint8(rgb, new long[] {2, 32, 32, 3}, new byte[2 * 32 * 32 * 3]);
        assertThatThrownBy(() -> predict(segmentation, List.of(rgb), out, false, false))
                .isInstanceOf(PredictionInputException.class)
                .hasMessageContaining("rgb.npy")
                .hasMessageContaining("[2, 32, 32, 3]")
                .hasMessageContaining("[N, 32, 32, 1] or [N, 32, 32]");

        float[] values = new float[3 * 32 * 32];
        values[32 * 32 + 7] = Float.NaN;
        Path nan = dir.resolve("nan.npy");
        TestNpy.float32(nan, new long[] {3, 32, 32}, values);
        assertThatThrownBy(() -> predict(segmentation, List.of(nan), out, false, false))
                .hasMessageContaining("NaN at sample 1")
                .hasMessageContaining("[1, 0, 7]");

        Path rows = dir.resolve("rows.npy");
        TestNpy.float32(rows, new long[] {2, 5}, new float[10]);
        assertThatThrownBy(() -> predict(regression, List.of(rows), out, false, false))
                .hasMessageContaining("[2, 5]")
                .hasMessageContaining("[N, 6] (N samples of 6 features");

        Path damaged = dir.resolve("damaged.png");
        Files.write(damaged, new byte[] {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3});
        assertThatThrownBy(() -> predict(images, List.of(damaged), dir.resolve("refused/c.csv"), false, false))
                .hasMessageContaining("damaged.png");
        assertThatThrownBy(() -> predict(regression, List.of(imageFolder), out, false, false))
                .hasMessageContaining("is an image, but the model takes [N, 6]");
        assertThatThrownBy(() -> predict(segmentation, List.of(rgb, imageFolder), out, false, false))
                .hasMessageContaining("mix");
        Path numpyFixtures = TestPaths.repoRoot().resolve("engine/src/test/resources/numpy");
        assertThatThrownBy(() -> predict(regression, List.of(numpyFixtures.resolve("object.npy")), out, false, false))
                .isInstanceOf(PredictionInputException.class)
                .hasMessageContaining("object.npy");
        assertThatThrownBy(() -> predict(regression, List.of(numpyFixtures.resolve("arrays.npz")), out, false, false))
                .hasMessageContaining("holds 3 arrays")
                .hasMessageContaining("arrays.npz:x");
        assertThatThrownBy(() -> predict(
                        regression, List.of(Path.of(numpyFixtures.resolve("arrays.npz") + ":z")), out, false, false))
                .hasMessageContaining("no array \"z\"");
        assertThat(dir.resolve("refused")).doesNotExist();
    }

    @Test
    void outputsThatDoNotSuitTheTaskOrExistAreRefusedBeforeAnyWork() throws Exception {
        Path in = shapeBytes("out-in.npy");
        assertThatThrownBy(() -> predict(segmentation, List.of(in), dir.resolve("x.csv"), false, false))
                .hasMessageContaining("a CSV holds one class per input")
                .hasMessageContaining("segmentation");
        assertThatThrownBy(() -> predict(reconstruction, List.of(in), dir.resolve("folder"), false, false))
                .hasMessageContaining("neither a .npy");
        assertThatThrownBy(() -> predict(segmentation, List.of(in), dir.resolve("o.npy"), false, true))
                .hasMessageContaining("--overlay");

        Path existing = dir.resolve("existing.npy");
        Files.writeString(existing, "the user's file");
        assertThatThrownBy(() -> predict(reconstruction, List.of(in), existing, false, false))
                .hasMessageContaining("exists: give --force");
        assertThat(Files.readString(existing)).isEqualTo("the user's file");
        predict(reconstruction, List.of(in), existing, true, false);
        assertThat(TestNpy.shape(existing)).containsExactly(N, 32, 32, 1);

        Path classesExisting = dir.resolve("seg2.classes.npy");
        Files.writeString(classesExisting, "kept");
        assertThatThrownBy(() -> predict(segmentation, List.of(in), dir.resolve("seg2.npy"), false, false))
                .hasMessageContaining("seg2.classes.npy exists");
        assertThat(dir.resolve("seg2.npy")).doesNotExist();
    }
}
