package org.traindeck.engine.use.predict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.InputRange;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.use.TrainedModel;

/**
 * {@code traindeck predict} on arrays in TrainDeck's one layout (channels last, as a numpy source reads them by
 * default) and in PyTorch's: both give the trained network's outputs where the shape tells them apart, a shape that
 * fits both (3×3×3 images) is refused naming {@code --layout}, outputs come in the inputs' layout, and float pixels
 * in 0–255 for a model trained on image files (whose bytes became 0–1) are a warning naming {@code --scale 255},
 * which fixes them.
 */
class OneLayoutPredictTest {

    private static final int N = 4;

    @TempDir
    static Path dir;

    private static Path cubes;
    private static Path segmentation;
    private static Path pictures;
    private static float[] cubeInputs;

    private static Path train(String json) throws Exception {
        RunResult result = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse(json, dir).orThrow()))
                .runHere();
        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        return result.runDir();
    }

    @BeforeAll
    static void trainThreeModels() throws Exception {
        Random random = new Random(9);
        float[] x = new float[64 * 27];
        long[] y = new long[64];
        for (int i = 0; i < 64; i++) {
            for (int j = 0; j < 27; j++) {
                x[i * 27 + j] = random.nextFloat();
            }
            y[i] = x[i * 27] > 0.5f ? 1 : 0;
        }
        TestNpy.float32(dir.resolve("cubes-x.npy"), new long[] {64, 3, 3, 3}, x);
        TestNpy.int64(dir.resolve("cubes-y.npy"), new long[] {64}, y);
        cubeInputs = Arrays.copyOf(x, N * 27);
        cubes = train("""
                {"name": "cubes", "outputDir": "out", "seed": 3,
                 "model": {"type": "graph", "layers": [{"type": "conv2d", "filters": 4, "kernel": 2, "activation": "relu"},
                                                       {"type": "flatten"}]},
                 "data": {"train": {"type": "numpy", "inputs": "%s", "targets": "%s", "numClasses": 2},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": 1, "batchSize": 16}]}
                """.formatted(dir.resolve("cubes-x.npy"), dir.resolve("cubes-y.npy")));
        Path shapes = TestPaths.repoRoot().resolve("data/shapes/shapes.npz");
        segmentation = train("""
                {"name": "seg", "outputDir": "out", "seed": 3,
                 "model": {"type": "graph", "layers": [{"type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"}]},
                 "data": {"train": {"type": "numpy", "task": "segmentation", "inputs": "%s:x", "targets": "%s:y",
                                    "numClasses": 3, "scale": 0.00392156862745098, "limit": 48},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": 1, "batchSize": 16}]}
                """.formatted(shapes, shapes));
        Path folder = dir.resolve("pictures");
        for (String c : List.of("dark", "light")) {
            Files.createDirectories(folder.resolve(c));
            for (int i = 0; i < 6; i++) {
                BufferedImage image = new BufferedImage(6, 6, BufferedImage.TYPE_INT_RGB);
                for (int p = 0; p < 36; p++) {
                    int v = (c.equals("dark") ? 0 : 128) + random.nextInt(128);
                    image.setRGB(p % 6, p / 6, v << 16 | random.nextInt(256) << 8 | v);
                }
                ImageIO.write(
                        image, "png", folder.resolve(c).resolve(c + i + ".png").toFile());
            }
        }
        pictures = train("""
                {"name": "pictures", "outputDir": "out", "seed": 3, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "images", "path": "%s", "width": 6, "height": 6, "channels": 3},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": 1, "batchSize": 4}]}
                """.formatted(folder));
    }

    /** [N, H, W, C] values as [N, C, H, W]. */
    private static float[] channelsFirst(float[] last, int n, int positions, int channels) {
        float[] out = new float[last.length];
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < positions; p++) {
                for (int c = 0; c < channels; c++) {
                    out[(i * channels + c) * positions + p] = last[(i * positions + p) * channels + c];
                }
            }
        }
        return out;
    }

    private static MainAccess.Result predict(Path run, Path in, Path out, String... options) {
        String[] args = new String[5 + options.length];
        System.arraycopy(
                new String[] {"predict", run.toString(), in.toString(), "--out", out.toString()}, 0, args, 0, 5);
        System.arraycopy(options, 0, args, 5, options.length);
        return MainAccess.run(args);
    }

    @Test
    void aShapeThatFitsBothLayoutsIsRefusedNamingTheChoiceAndEitherLayoutGivesTheSameOutputs() throws Exception {
        Path last = dir.resolve("cubes-last.npy");
        TestNpy.float32(last, new long[] {N, 3, 3, 3}, cubeInputs);
        MainAccess.Result refused = predict(cubes, last, dir.resolve("refused.npy"));
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.stderr())
                .contains("cubes-last.npy")
                .contains("channels last or first")
                .contains("--layout channelsLast|channelsFirst");
        assertThat(dir.resolve("refused.npy")).doesNotExist();

        Path fromLast = dir.resolve("p-last.npy");
        MainAccess.Result ok = predict(cubes, last, fromLast, "--layout", "channelsLast");
        assertThat(ok.exitCode()).as(ok.stderr()).isZero();
        Path first = dir.resolve("cubes-first.npy");
        float[] transposed = channelsFirst(cubeInputs, N, 9, 3);
        TestNpy.float32(first, new long[] {N, 3, 3, 3}, transposed);
        Path fromFirst = dir.resolve("p-first.npy");
        MainAccess.Result okFirst = predict(cubes, first, fromFirst, "--layout", "channelsFirst");
        assertThat(okFirst.exitCode()).as(okFirst.stderr()).isZero();

        INDArray want = TrainedModel.open(cubes, false)
                .output(Nd4j.create(transposed, new long[] {N, 3, 3, 3}, DataType.FLOAT))[0];
        float[] expected = want.dup('c').reshape(want.length()).toFloatVector();
        assertThat(TestNpy.floats(fromLast)).containsExactly(expected, within(1e-6f));
        assertThat(TestNpy.floats(fromFirst)).containsExactly(expected, within(1e-6f));
        assertThat(Files.getPosixFilePermissions(fromLast))
                .isEqualTo(Files.getPosixFilePermissions(cubes.resolve("config.json")));

        MainAccess.Result unknown = predict(cubes, last, dir.resolve("u.npy"), "--layout", "nhwc");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.stderr()).contains("--layout takes channelsLast|channelsFirst, not \"nhwc\"");
    }

    @Test
    void imagesInEitherLayoutGiveTheSameMasksAndProbabilitiesComeInTheInputsLayout() throws Exception {
        Path shapes = TestPaths.repoRoot().resolve("data/shapes/shapes.npz");
        float[] raw = TestNpy.firstSamples(shapes, "x", N);
        byte[] bytes = new byte[raw.length];
        for (int i = 0; i < raw.length; i++) {
            bytes[i] = (byte) raw[i];
        }
        Path last = dir.resolve("shapes-last.npy");
        TestNpy.uint8(last, new long[] {N, 32, 32, 1}, bytes);
        Path first = dir.resolve("shapes-first.npy");
        TestNpy.uint8(first, new long[] {N, 1, 32, 32}, bytes);

        Path outLast = dir.resolve("seg-last.npy");
        MainAccess.Result a = predict(segmentation, last, outLast);
        assertThat(a.exitCode()).as(a.stderr()).isZero();
        assertThat(a.stdout()).contains(N + " predictions of shape [32, 32, 3] each");
        Path outFirst = dir.resolve("seg-first.npy");
        MainAccess.Result b = predict(segmentation, first, outFirst);
        assertThat(b.exitCode()).as(b.stderr()).isZero();

        float[] scaled = raw.clone();
        for (int i = 0; i < scaled.length; i++) {
            scaled[i] /= 255f;
        }
        INDArray want = TrainedModel.open(segmentation, false)
                .output(Nd4j.create(scaled, new long[] {N, 1, 32, 32}, DataType.FLOAT))[0];
        assertThat(TestNpy.shape(outFirst)).containsExactly(N, 3, 32, 32);
        assertThat(TestNpy.floats(outFirst))
                .containsExactly(want.dup('c').reshape(want.length()).toFloatVector(), within(1e-6f));
        assertThat(TestNpy.shape(outLast)).containsExactly(N, 32, 32, 3);
        INDArray wantLast = want.permute(0, 2, 3, 1).dup('c');
        assertThat(TestNpy.floats(outLast))
                .containsExactly(wantLast.reshape(wantLast.length()).toFloatVector(), within(1e-6f));
        assertThat(TestNpy.longs(dir.resolve("seg-last.classes.npy")))
                .containsExactly(TestNpy.longs(dir.resolve("seg-first.classes.npy")));

        MainAccess.Result mixed = MainAccess.run(
                "predict",
                segmentation.toString(),
                last.toString(),
                first.toString(),
                "--out",
                dir.resolve("mixed.npy").toString());
        assertThat(mixed.exitCode()).isEqualTo(2);
        assertThat(mixed.stderr())
                .contains("shapes-first.npy holds its samples channels first, but ")
                .contains("shapes-last.npy holds them channels last: give every input in one layout");

        Path asked = dir.resolve("seg-asked.npy");
        MainAccess.Result c = predict(segmentation, last, asked, "--layout", "channelsFirst");
        assertThat(c.exitCode()).isEqualTo(2);
        assertThat(c.stderr())
                .contains("but the model takes [N, 32, 32] or [N, 1, 32, 32]")
                .contains("channels first");
        TestNpy.float32(dir.resolve("grey.npy"), new long[] {N, 32, 32}, scaled);
        MainAccess.Result d = predict(segmentation, dir.resolve("grey.npy"), asked, "--layout", "channelsFirst");
        assertThat(d.exitCode()).as(d.stderr()).isZero();
        assertThat(TestNpy.shape(asked)).containsExactly(N, 3, 32, 32);
    }

    @Test
    void floatPixelsIn0To255ForAModelTrainedOn0To1AreAWarningNamingTheScaleThatFixesThem() throws Exception {
        // pictures' bytes as floats: an image source scales bytes to [0, 1], but not floats
        float[] channelsLast = new float[N * 108];
        Random random = new Random(4);
        for (int i = 0; i < channelsLast.length; i++) {
            channelsLast[i] = random.nextInt(256);
        }
        channelsLast[5] = 255;
        // PyTorch's layout here, the bytes below in TrainDeck's
        Path big = dir.resolve("pixels-255.npy");
        TestNpy.float32(big, new long[] {N, 3, 6, 6}, channelsFirst(channelsLast, N, 36, 3));
        MainAccess.Result warned = predict(pictures, big, dir.resolve("w.npy"));
        assertThat(warned.exitCode()).as(warned.stderr()).isZero();
        assertThat(warned.stderr())
                .contains("warning: " + big + "'s values run from 0 to 255, far outside the 0")
                .contains("the model was trained on")
                .contains("--scale 255");

        InputRange trained = InputRange.read(pictures.resolve(RunFolder.INPUT_RANGE));
        assertThat(trained.min()).isGreaterThanOrEqualTo(0);
        assertThat(trained.max()).isLessThanOrEqualTo(1).isGreaterThan(0.5);
        // a run folder from before the range was recorded: its predictions as before, without a word
        Path aside = Files.move(pictures.resolve(RunFolder.INPUT_RANGE), dir.resolve("range-aside.json"));
        try {
            MainAccess.Result old = predict(pictures, big, dir.resolve("old.npy"));
            assertThat(old.exitCode()).as(old.stderr()).isZero();
            assertThat(old.stderr()).doesNotContain("warning");
        } finally {
            Files.move(aside, pictures.resolve(RunFolder.INPUT_RANGE));
        }

        Path scaledOut = dir.resolve("s.npy");
        MainAccess.Result fixed = predict(pictures, big, scaledOut, "--scale", "255");
        assertThat(fixed.exitCode()).as(fixed.stderr()).isZero();
        assertThat(fixed.stderr()).doesNotContain("warning");
        float[] unit = channelsFirst(channelsLast, N, 36, 3);
        for (int i = 0; i < unit.length; i++) {
            unit[i] /= 255;
        }
        INDArray want =
                TrainedModel.open(pictures, false).output(Nd4j.create(unit, new long[] {N, 108}, DataType.FLOAT))[0];
        assertThat(TestNpy.floats(scaledOut))
                .containsExactly(want.dup('c').reshape(want.length()).toFloatVector(), within(1e-5f));

        byte[] bytes = new byte[channelsLast.length];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) channelsLast[i];
        }
        Path uint8 = dir.resolve("pixels.npy");
        TestNpy.uint8(uint8, new long[] {N, 6, 6, 3}, bytes);
        Path fromBytes = dir.resolve("b.npy");
        MainAccess.Result quiet = predict(pictures, uint8, fromBytes);
        assertThat(quiet.exitCode()).as(quiet.stderr()).isZero();
        assertThat(quiet.stderr()).doesNotContain("warning");
        assertThat(TestNpy.floats(fromBytes)).containsExactly(TestNpy.floats(scaledOut), within(1e-6f));

        MainAccess.Result zero = predict(pictures, big, dir.resolve("z.npy"), "--scale", "0");
        assertThat(zero.exitCode()).isEqualTo(2);
        assertThat(zero.stderr()).contains("--scale").contains("a positive number");
    }
}
