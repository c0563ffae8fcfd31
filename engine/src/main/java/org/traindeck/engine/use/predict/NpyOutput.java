package org.traindeck.engine.use.predict;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.traindeck.engine.data.numpy.NpyHeaderWriter;

/**
 * Writes one array as an {@code .npy} file (format 1.0, C order, little-endian): float32 values or int64 ids. The
 * header is padded so that the data starts at a multiple of 64 bytes, as NumPy writes it.
 */
final class NpyOutput {

    private NpyOutput() {}

    static void writeFloats(float[] values, long[] shape, OutputStream out) throws IOException {
        check(values.length, shape);
        OutputStream buffered = new BufferedOutputStream(out, 1 << 16);
        NpyHeaderWriter.write("<f4", shape, buffered);
        ByteBuffer chunk = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            if (!chunk.hasRemaining()) {
                buffered.write(chunk.array(), 0, chunk.position());
                chunk.clear();
            }
            chunk.putFloat(v);
        }
        buffered.write(chunk.array(), 0, chunk.position());
        buffered.flush();
    }

    static void writeLongs(long[] values, long[] shape, OutputStream out) throws IOException {
        check(values.length, shape);
        OutputStream buffered = new BufferedOutputStream(out, 1 << 16);
        NpyHeaderWriter.write("<i8", shape, buffered);
        ByteBuffer chunk = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            if (!chunk.hasRemaining()) {
                buffered.write(chunk.array(), 0, chunk.position());
                chunk.clear();
            }
            chunk.putLong(v);
        }
        buffered.write(chunk.array(), 0, chunk.position());
        buffered.flush();
    }

    private static void check(int length, long[] shape) {
        long product = Arrays.stream(shape).reduce(1, Math::multiplyExact);
        if (shape.length == 0 || product != length) {
            throw new IllegalArgumentException(length + " values for the shape " + Arrays.toString(shape));
        }
    }
}
