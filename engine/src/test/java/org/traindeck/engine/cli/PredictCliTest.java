package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
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
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.numpy.NpyArray;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.use.TrainedModel;

/**
 * {@code traindeck predict} on a digits classifier trained with standardised CSV rows: raw rows from the CSV as .npy
 * give the model's outputs on the rows standardised with the training rows' figures (worked out here from the rows
 * themselves); a CSV of classes; refusals with exit code 2 and nothing written.
 */
class PredictCliTest {

    private static final int ROWS = 6;
    private static final int LIMIT = 400;

    @TempDir
    static Path dir;

    private static Path run;
    private static float[][] csv;

    @BeforeAll
    static void train() throws Exception {
        Path digits = TestPaths.repoRoot().resolve("data/digits/digits.csv.gz");
        RunResult result = TrainingRun.open(RunRequest.of(
                        ConfigParser.parse("""
                {"name": "digits", "outputDir": "out", "seed": 7, "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "normalize": "standardize", "limit": %d},
                          "validationSplit": 0.2},
                 "stages": [{"epochs": 1, "batchSize": 32}]}
                """.formatted(digits, LIMIT), dir).orThrow()))
                .runHere();
        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        run = result.runDir();
        csv = new float[LIMIT][];
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(new GZIPInputStream(Files.newInputStream(digits)), StandardCharsets.UTF_8))) {
            for (int i = 0; i < LIMIT; i++) {
                String[] cells = r.readLine().split(",");
                csv[i] = new float[64];
                for (int j = 0; j < 64; j++) {
                    csv[i][j] = Float.parseFloat(cells[j]);
                }
            }
        }
    }

    /** The training rows' mean and deviation per feature: the split's training rows, as DataLoader draws them. */
    private static float[] standardised(float[] raw) throws Exception {
        int[] order = DataLoader.permutation(LIMIT, new SplittableRandom(7 ^ 0x5EED5EEDL));
        int held = Math.round(LIMIT * 0.2f);
        float[] out = raw.clone();
        for (int j = 0; j < 64; j++) {
            double sum = 0;
            double sq = 0;
            for (int k = held; k < LIMIT; k++) {
                sum += csv[order[k]][j];
            }
            double mean = sum / (LIMIT - held);
            for (int k = held; k < LIMIT; k++) {
                sq += (csv[order[k]][j] - mean) * (csv[order[k]][j] - mean);
            }
            double std = Math.sqrt(sq / (LIMIT - held));
            for (int i = 0; i < out.length / 64; i++) {
                out[i * 64 + j] = (float) ((raw[i * 64 + j] - mean) * (std > 1e-12 ? 1 / std : 1));
            }
        }
        return out;
    }

    @Test
    void rawRowsGiveTheModelsOutputsOnTheStandardisedRows() throws Exception {
        float[] raw = new float[ROWS * 64];
        for (int i = 0; i < ROWS; i++) {
            System.arraycopy(csv[LIMIT - 1 - i], 0, raw, i * 64, 64);
        }
        Path in = dir.resolve("rows.npy");
        try (OutputStream out = Files.newOutputStream(in)) {
            out.write(npyHeader(ROWS));
            ByteBuffer buffer = ByteBuffer.allocate(raw.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (float v : raw) {
                buffer.putFloat(v);
            }
            out.write(buffer.array());
        }
        Path probabilities = dir.resolve("p.npy");
        MainAccess.Result result =
                MainAccess.run("predict", run.toString(), in.toString(), "--out", probabilities.toString());
        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stdout())
                .contains("wrote " + probabilities)
                .contains("wrote " + dir.resolve("p.classes.npy"))
                .contains("6 predictions of shape [10] each");

        INDArray want = TrainedModel.open(run, false)
                .output(Nd4j.create(standardised(raw), new long[] {ROWS, 64}, DataType.FLOAT))[0];
        try (NpyArray written = NpyArray.open(probabilities)) {
            assertThat(written.shape()).containsExactly(ROWS, 10);
            float[] got = new float[ROWS * 10];
            written.readSamples(0, ROWS, got, 0);
            assertThat(got).containsExactly(want.dup('c').reshape(ROWS * 10L).toFloatVector(), within(1e-5f));
        }

        Path table = dir.resolve("classes.csv");
        MainAccess.Result csvResult =
                MainAccess.run("predict", run.toString(), in.toString(), "--out", table.toString());
        assertThat(csvResult.exitCode()).as(csvResult.stderr()).isZero();
        assertThat(Files.readAllLines(table)).hasSize(ROWS + 1);
        assertThat(Files.readAllLines(table).get(1))
                .startsWith(in + "[0]," + want.getRow(0).argMax().getInt(0) + ",");

        MainAccess.Result again = MainAccess.run("predict", run.toString(), in.toString(), "--out", table.toString());
        assertThat(again.exitCode()).isEqualTo(2);
        assertThat(again.stderr()).contains(table + " exists: give --force");
    }

    @Test
    void badRequestsExitWithTwoAndALocatedMessage() throws Exception {
        Path image = dir.resolve("digit.png");
        ImageIO.write(new BufferedImage(8, 8, BufferedImage.TYPE_INT_RGB), "png", image.toFile());
        MainAccess.Result csvModel = MainAccess.run(
                "predict",
                run.toString(),
                image.toString(),
                "--out",
                dir.resolve("x.csv").toString());
        assertThat(csvModel.exitCode()).isEqualTo(2);
        assertThat(csvModel.stderr()).contains("is an image, but the model takes [N, 64]");

        MainAccess.Result prompt = MainAccess.run("predict", run.toString(), "--prompt", "hello");
        assertThat(prompt.exitCode()).isEqualTo(2);
        assertThat(prompt.stderr()).contains("--prompt continues a text").contains("classification");

        MainAccess.Result ema = MainAccess.run(
                "predict",
                run.toString(),
                image.toString(),
                "--ema",
                "--out",
                dir.resolve("x.csv").toString());
        assertThat(ema.exitCode()).isEqualTo(2);
        assertThat(ema.stderr()).contains("--ema").contains("holds no weight average");

        MainAccess.Result noRun =
                MainAccess.run("predict", dir.resolve("nowhere").toString(), image.toString(), "--out", "x.npy");
        assertThat(noRun.exitCode()).isEqualTo(2);
        assertThat(noRun.stderr()).startsWith("error: ").contains("nowhere");
        assertThat(dir.resolve("x.csv")).doesNotExist();
    }

    private static byte[] npyHeader(int rows) {
        String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + rows + ", 64), }";
        int unpadded = 10 + dict.length() + 1;
        String header = dict + " ".repeat((unpadded + 63) / 64 * 64 - unpadded) + "\n";
        byte[] h = header.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[10 + h.length];
        System.arraycopy(
                new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) h.length, (byte) (h.length >> 8)},
                0,
                out,
                0,
                10);
        System.arraycopy(h, 0, out, 10, h.length);
        return out;
    }
}
