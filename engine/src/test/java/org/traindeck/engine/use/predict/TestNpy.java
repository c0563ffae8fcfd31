package org.traindeck.engine.use.predict;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.traindeck.engine.data.numpy.NpyArray;
import org.traindeck.engine.data.numpy.NpyHeaderWriter;
import org.traindeck.engine.data.numpy.NpzArchive;

/** NumPy files for tests: written byte by byte as NumPy writes them, read back with TrainDeck's reader. */
final class TestNpy {

    private TestNpy() {}

    static void uint8(Path file, long[] shape, byte[] values) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            String dict = "{'descr': '|u1', 'fortran_order': False, 'shape': " + NpyHeaderWriter.tuple(shape) + ", }";
            int unpadded = 10 + dict.length() + 1;
            String header = dict + " ".repeat((unpadded + 63) / 64 * 64 - unpadded) + "\n";
            out.write(new byte[] {
                (byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) header.length(), (byte) (header.length() >> 8)
            });
            out.write(header.getBytes(StandardCharsets.US_ASCII));
            out.write(values);
        }
    }

    static void float32(Path file, long[] shape, float[] values) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            NpyOutput.writeFloats(values, shape, out);
        }
    }

    static void int64(Path file, long[] shape, long[] values) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            NpyOutput.writeLongs(values, shape, out);
        }
    }

    /** The first {@code n} samples of an array of an .npz, as floats (raw values). */
    static float[] firstSamples(Path npz, String name, int n) throws IOException {
        try (NpzArchive archive = NpzArchive.open(npz);
                NpyArray a = archive.array(name)) {
            float[] out = new float[(int) (n * a.sampleLength())];
            a.readSamples(0, n, out, 0);
            return out;
        }
    }

    static float[] floats(Path npy) throws IOException {
        try (NpyArray a = NpyArray.open(npy)) {
            float[] out = new float[(int) (a.sampleCount() * a.sampleLength())];
            a.readSamples(0, (int) a.sampleCount(), out, 0);
            return out;
        }
    }

    static long[] longs(Path npy) throws IOException {
        try (NpyArray a = NpyArray.open(npy)) {
            long[] out = new long[(int) (a.sampleCount() * a.sampleLength())];
            a.readSamplesLongs(0, (int) a.sampleCount(), out, 0);
            return out;
        }
    }

    static long[] shape(Path npy) throws IOException {
        try (NpyArray a = NpyArray.open(npy)) {
            return a.shape();
        }
    }
}
