package org.traindeck.engine.data;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.traindeck.engine.data.numpy.NpyHeaderWriter;

/**
 * NumPy files for the named-input tests, written as NumPy writes them: a picture and a colour code whose class
 * depends on both (two inputs), and learning histories of a bandit (token ids, rewards per step, per-step targets
 * and a mask of the padded steps).
 */
public final class NamedInputFixtures {

    private NamedInputFixtures() {}

    /** An array: its dtype ({@code <f4} or {@code <i8}), shape and values. */
    public record Array(String descr, long[] shape, double[] values) {}

    /**
     * {@code image} [n, 6, 6, 1]: bright on the left or right half; {@code meta} [n, 3]: a colour code; {@code y}
     * [n]: 2 × side + colour, so either input alone tells half of the class.
     */
    public static Map<String, Array> pictureAndCode(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] image = new double[n * 36];
        double[] meta = new double[n * 3];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            int side = r.nextInt(2);
            int colour = r.nextInt(2);
            for (int p = 0; p < 36; p++) {
                boolean bright = (p % 6 < 3) == (side == 0);
                image[i * 36 + p] = (bright ? 0.8 : 0.2) + 0.1 * r.nextDouble();
            }
            meta[i * 3] = colour + 0.2 * r.nextDouble();
            meta[i * 3 + 1] = r.nextDouble();
            meta[i * 3 + 2] = 1 - colour + 0.2 * r.nextDouble();
            y[i] = 2 * side + colour;
        }
        return Map.of(
                "image", new Array("<f4", new long[] {n, 6, 6, 1}, image),
                "meta", new Array("<f4", new long[] {n, 3}, meta),
                "y", new Array("<i8", new long[] {n}, y));
    }

    /**
     * {@code actions} [n, t] previous action + 1 (0: none), {@code rewards} [n, t, 1] previous reward, {@code targets}
     * [n, t] the arm pulled, {@code mask} [n, t]: every fourth history padded after 3t/4 steps.
     */
    public static Map<String, Array> histories(int n, int t, int arms, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] actions = new double[n * t];
        double[] rewards = new double[n * t];
        double[] targets = new double[n * t];
        double[] mask = new double[n * t];
        for (int i = 0; i < n; i++) {
            int best = r.nextInt(arms);
            int length = i % 4 == 3 ? 3 * t / 4 : t;
            for (int s = 0; s < length; s++) {
                int a = r.nextDouble() < Math.min(1.0, s / 6.0) ? best : r.nextInt(arms);
                targets[i * t + s] = a;
                mask[i * t + s] = 1;
                if (s + 1 < length) {
                    actions[i * t + s + 1] = a + 1;
                    rewards[i * t + s + 1] = a == best ? 1 : 0;
                }
            }
        }
        return Map.of(
                "actions", new Array("<i8", new long[] {n, t}, actions),
                "rewards", new Array("<f4", new long[] {n, t, 1}, rewards),
                "targets", new Array("<i8", new long[] {n, t}, targets),
                "mask", new Array("<f4", new long[] {n, t}, mask));
    }

    /** The arrays as an uncompressed {@code .npz} (a zip of {@code NAME.npy}), as {@code numpy.savez} writes it. */
    public static Path npz(Path file, Map<String, Array> arrays) throws IOException {
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
            for (Map.Entry<String, Array> e : arrays.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey() + ".npy"));
                write(e.getValue(), zip);
                zip.closeEntry();
            }
        }
        return file;
    }

    public static Path npy(Path file, Array array) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            write(array, out);
        }
        return file;
    }

    private static void write(Array a, OutputStream out) throws IOException {
        NpyHeaderWriter.write(a.descr(), a.shape(), out);
        boolean floats = a.descr().equals("<f4");
        ByteBuffer b = ByteBuffer.allocate(a.values().length * (floats ? 4 : 8)).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : a.values()) {
            if (floats) {
                b.putFloat((float) v);
            } else {
                b.putLong((long) v);
            }
        }
        out.write(b.array());
    }
}
