package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.NamedInputFixtures;

/**
 * {@code traindeck predict} on a trained conditional diffusion model: one generated picture per conditioning
 * example, in the targets' layout; DDIM gives the same samples for the same seed and other ones for another seed;
 * the samples look like the training pictures (one half bright, one dark) far more than the mean picture does (per
 * pixel, the squared error to the nearer clean picture: DDIM 0.0125, DDPM 0.0107, the mean picture 0.090); and
 * every bad request is refused with exit code 2.
 */
class DiffusionPredictTest {

    @TempDir
    static Path dir;

    static RunResult run;

    @BeforeAll
    static void train() throws Exception {
        NamedInputFixtures.npz(dir.resolve("set.npz"), NamedInputFixtures.pictureAndCode(1024, 3));
        String config = """
                {"name": "gen", "outputDir": "out", "seed": 3,
                 "model": {"type": "graph", "layers": [
                   {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 32, "frequencies": 32},
                   {"name": "x", "type": "dense", "inputs": "noisy", "units": 128, "activation": "relu"},
                   {"name": "c", "type": "dense", "inputs": "meta", "units": 8, "activation": "tanh"},
                   {"name": "all", "type": "concat", "inputs": ["x", "t", "c"]},
                   {"name": "h1", "type": "dense", "units": 128, "activation": "relu"},
                   {"name": "h2", "type": "dense", "units": 128, "activation": "relu"},
                   {"name": "back", "type": "dense", "units": 36},
                   {"name": "image", "type": "reshape", "shape": [1, 6, 6]}]},
                 "data": {"train": {"type": "numpy", "task": "diffusion", "inputs": {"meta": "set.npz:meta"},
                                    "targets": "set.npz:image",
                                    "diffusion": {"timesteps": 200, "schedule": "cosine", "prediction": "v"}},
                          "validationSplit": 0.1},
                 "stages": [{"name": "main", "epochs": 150, "batchSize": 32,
                             "optimizer": {"type": "adam", "learningRate": 0.003}}]}
                """;
        run = TrainingRun.open(RunRequest.of(ConfigParser.parse(config, dir).orThrow()))
                .runHere();
        assertThat(run.status()).as(run.message()).isEqualTo(RunResult.Status.FINISHED);
        Map<String, NamedInputFixtures.Array> test = NamedInputFixtures.pictureAndCode(32, 9);
        NamedInputFixtures.npz(dir.resolve("cond.npz"), Map.of("meta", test.get("meta")));
    }

    private static MainAccess.Result predict(String out, String... more) {
        String[] args = new String[4 + more.length];
        args[0] = "predict";
        args[1] = run.runDir().toString();
        args[2] = "--out";
        args[3] = dir.resolve(out).toString();
        System.arraycopy(more, 0, args, 4, more.length);
        return MainAccess.run(args);
    }

    @Test
    void ddimSamplesArePicturesOfTheTrainingKindAndTheSameForTheSameSeed() throws Exception {
        String cond = dir.resolve("cond.npz").toString();
        MainAccess.Result a = predict("a.npy", cond, "--steps", "25", "--seed", "4");
        MainAccess.Result b = predict("b.npy", cond, "--steps", "25", "--seed", "4");
        MainAccess.Result c = predict("c.npy", cond, "--steps", "25", "--seed", "5");

        assertThat(a.exitCode()).as(a.stderr()).isZero();
        assertThat(a.stdout()).contains("32 samples generated (ddim, 25 steps)");
        assertThat(header(dir.resolve("a.npy"))).contains("'shape': (32, 6, 6, 1)");
        float[] x = floats(dir.resolve("a.npy"), 32 * 36);
        assertThat(floats(dir.resolve("b.npy"), 32 * 36)).containsExactly(x);
        assertThat(floats(dir.resolve("c.npy"), 32 * 36)).isNotEqualTo(x);
        double generated = nearestPictureError(x);
        double mean = nearestPictureError(new float[32 * 36], 0.55f);
        assertThat(generated).isLessThan(0.3 * mean);
    }

    @Test
    void ddpmSamplesToo() throws Exception {
        MainAccess.Result r =
                predict("p.npy", dir.resolve("cond.npz").toString(), "--sampler", "ddpm", "--steps", "100");
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        double generated = nearestPictureError(floats(dir.resolve("p.npy"), 32 * 36));
        assertThat(generated).isLessThan(0.3 * nearestPictureError(new float[32 * 36], 0.55f));
    }

    @Test
    void badRequestsAreRefusedWithExitCodeTwo() {
        String cond = dir.resolve("cond.npz").toString();
        MainAccess.Result noInputs = predict("x.npy", "--count", "4");
        assertThat(noInputs.exitCode()).isEqualTo(2);
        assertThat(noInputs.stderr()).contains("conditioned on meta");
        MainAccess.Result steps = predict("x.npy", cond, "--steps", "0");
        assertThat(steps.exitCode()).isEqualTo(2);
        assertThat(steps.stderr()).contains("--steps 0");
        MainAccess.Result sampler = predict("x.npy", cond, "--sampler", "euler");
        assertThat(sampler.exitCode()).isEqualTo(2);
        assertThat(sampler.stderr()).contains("ddim or ddpm");
        MainAccess.Result csv = predict("x.csv", cond);
        assertThat(csv.exitCode()).isEqualTo(2);
        assertThat(csv.stderr()).contains(".npy");
        assertThat(Files.exists(dir.resolve("x.npy"))).isFalse();
    }

    /** Mean squared error per pixel of each picture to the nearer of the two clean pictures (left or right bright). */
    private static double nearestPictureError(float[] x) {
        return nearestPictureError(x, Float.NaN);
    }

    private static double nearestPictureError(float[] x, float fill) {
        double total = 0;
        int n = x.length / 36;
        for (int i = 0; i < n; i++) {
            double[] err = new double[2];
            for (int side = 0; side < 2; side++) {
                for (int p = 0; p < 36; p++) {
                    double v = Float.isNaN(fill) ? x[i * 36 + p] : fill;
                    double clean = ((p % 6 < 3) == (side == 0) ? 0.8 : 0.2) + 0.05;
                    err[side] += (v - clean) * (v - clean) / 36;
                }
            }
            total += Math.min(err[0], err[1]);
        }
        return total / n;
    }

    private static String header(Path npy) throws Exception {
        byte[] bytes = Files.readAllBytes(npy);
        int length = (bytes[8] & 0xff) | (bytes[9] & 0xff) << 8;
        return new String(bytes, 10, length, StandardCharsets.US_ASCII);
    }

    private static float[] floats(Path npy, int count) throws Exception {
        byte[] bytes = Files.readAllBytes(npy);
        int length = (bytes[8] & 0xff) | (bytes[9] & 0xff) << 8;
        ByteBuffer b = ByteBuffer.wrap(bytes, 10 + length, count * 4).order(ByteOrder.LITTLE_ENDIAN);
        float[] out = new float[count];
        for (int i = 0; i < count; i++) {
            out[i] = b.getFloat();
        }
        return out;
    }
}
