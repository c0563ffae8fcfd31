package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * 3D volumes [N, D, H, W, C] (or channels first) for the tasks that take images: a volume classifier and a voxel
 * segmenter each train on small .npy volumes written here, and both layouts read as the same samples.
 */
class VolumeTasksTest {

    private static final int N = 96;
    private static final int D = 4;
    private static final int H = 6;
    private static final int W = 6;

    @TempDir
    Path dir;

    /** Sample i: a bright 2×3×3 block in the front (class 0) or back (class 1) half of the volume, at a place that varies. */
    private static boolean bright(int i, int z, int y, int x) {
        int z0 = i % 2 == 0 ? 0 : 2;
        int y0 = (i / 2) % 4;
        int x0 = (i / 8) % 4;
        return z >= z0 && z < z0 + 2 && y >= y0 && y < y0 + 3 && x >= x0 && x < x0 + 3;
    }

    private static float value(int i, int z, int y, int x) {
        return (bright(i, z, y, x) ? 0.8f : 0f) + ((i * 7 + z * 5 + y * 3 + x) % 11) / 50f;
    }

    private void writeVolumes() throws IOException {
        float[] last = new float[N * D * H * W];
        float[] first = new float[N * D * H * W];
        byte[] classes = new byte[N];
        byte[] masks = new byte[N * D * H * W];
        for (int i = 0; i < N; i++) {
            classes[i] = (byte) (i % 2);
            for (int z = 0; z < D; z++) {
                for (int y = 0; y < H; y++) {
                    for (int x = 0; x < W; x++) {
                        int at = ((i * D + z) * H + y) * W + x;
                        last[at] = value(i, z, y, x);
                        first[at] = value(i, z, y, x);
                        masks[at] = (byte) (bright(i, z, y, x) ? 1 : 0);
                    }
                }
            }
        }
        // one channel: [N, D, H, W, 1] and [N, 1, D, H, W] hold the values in the same order
        Files.write(
                dir.resolve("x_last.npy"), npy("<f4", "(" + N + ", " + D + ", " + H + ", " + W + ", 1)", floats(last)));
        Files.write(
                dir.resolve("x_first.npy"),
                npy("<f4", "(" + N + ", 1, " + D + ", " + H + ", " + W + ")", floats(first)));
        Files.write(dir.resolve("y.npy"), npy("|u1", "(" + N + ",)", classes));
        Files.write(dir.resolve("masks.npy"), npy("|u1", "(" + N + ", " + D + ", " + H + ", " + W + ")", masks));
    }

    private RunConfig config(String name, String layers, String source, int epochs) {
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "runs", "seed": 4,
                 "model": {"type": "graph", "layers": [%s]},
                 "data": {"train": %s, "validationSplit": 0.25},
                 "stages": [{"epochs": %d, "batchSize": 8, "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                """.formatted(name, layers, source, epochs), dir)
                .orThrow();
    }

    @Test
    void aVolumeClassifierTrains() throws IOException {
        writeVolumes();
        RunConfig config = config(
                "classify", """
                {"type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"},
                {"type": "maxPool3d", "size": 2},
                {"type": "flatten"}""", "{\"type\": \"numpy\", \"inputs\": \"x_last.npy\", \"targets\": \"y.npy\"}", 12);

        RunResult result = TrainingRun.open(RunRequest.of(config)).runHere();

        assertThat(result.status()).as(result.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(result.lastMetrics().get("val/accuracy")).isGreaterThan(0.8);
    }

    @Test
    void aVoxelSegmenterTrains() throws IOException {
        writeVolumes();
        RunConfig config = config(
                "segment",
                """
                {"type": "conv3d", "filters": 6, "kernel": 3, "activation": "relu"},
                {"type": "conv3d", "filters": 6, "kernel": 3, "activation": "relu"}""",
                "{\"type\": \"numpy\", \"task\": \"segmentation\", \"inputs\": \"x_first.npy\", \"layout\": \"channelsFirst\","
                        + " \"targets\": \"masks.npy\", \"numClasses\": 2}",
                12);

        RunResult result = TrainingRun.open(RunRequest.of(config)).runHere();

        assertThat(result.status()).as(result.message()).isEqualTo(RunResult.Status.FINISHED);
        // about 7 % of the voxels are the block: predicting background everywhere scores 0.93
        assertThat(result.lastMetrics().get("val/pixel_accuracy")).isGreaterThan(0.97);
        assertThat(result.lastMetrics()).containsKey("val/mean_iou");
    }

    @Test
    void bothLayoutsReadAsTheSameVolumes() throws IOException {
        writeVolumes();
        RunConfig last = config(
                "last",
                "{\"type\": \"conv3d\", \"filters\": 2, \"kernel\": 3}",
                "{\"type\": \"numpy\", \"inputs\": \"x_last.npy\", \"targets\": \"y.npy\"}",
                1);
        RunConfig first = config(
                "first",
                "{\"type\": \"conv3d\", \"filters\": 2, \"kernel\": 3}",
                "{\"type\": \"numpy\", \"inputs\": \"x_first.npy\", \"layout\": \"channelsFirst\", \"targets\": \"y.npy\"}",
                1);
        try (DataLoader.Loaded a = DataLoader.load(last, last.data(), "data");
                DataLoader.Loaded b = DataLoader.load(first, first.data(), "data")) {
            assertThat(a.train().shape()).isEqualTo(b.train().shape()).isInstanceOf(SampleShape.Volume.class);
            assertThat(a.train().task()).isEqualTo(Task.CLASSIFICATION);
            for (int i = 0; i < a.train().size(); i++) {
                float[] x = new float[a.train().featureCount()];
                float[] y = new float[x.length];
                a.train().copyFeatures(i, x, 0);
                b.train().copyFeatures(i, y, 0);
                assertThat(x).containsExactly(y);
            }
        }
    }

    private static byte[] floats(float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        return b.array();
    }

    private static byte[] npy(String descr, String shape, byte[] data) {
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
        int padded = (dict.length() + 1 + 10 + 63) / 64 * 64 - 10;
        String header = dict + " ".repeat(padded - dict.length() - 1) + "\n";
        ByteBuffer b = ByteBuffer.allocate(10 + header.length() + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0})
                .putShort((short) header.length())
                .put(header.getBytes(StandardCharsets.ISO_8859_1))
                .put(data);
        return b.array();
    }
}
