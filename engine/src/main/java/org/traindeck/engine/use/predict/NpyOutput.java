package org.traindeck.engine.use.predict;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Writes one array as an {@code .npy} file (format 1.0, C order, little-endian): float32 values or int64 ids. The
 * header is padded so that the data starts at a multiple of 64 bytes, as NumPy writes it.
 */
final class NpyOutput {

    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};

    private NpyOutput() {
    }

    static void writeFloats(float[] values, long[] shape, OutputStream out) throws IOException {
        check(values.length, shape);
        OutputStream buffered = new BufferedOutputStream(out, 1 << 16);
        header("<f4", shape, buffered);
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
        header("<i8", shape, buffered);
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

    private static void header(String descr, long[] shape, OutputStream out) throws IOException {
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + tuple(shape) + ", }";
        int unpadded = MAGIC.length + 2 + dict.length() + 1;
        int total = (unpadded + 63) / 64 * 64;
        String header = dict + " ".repeat(total - unpadded) + "\n";
        out.write(MAGIC);
        out.write(header.length() & 0xff);
        out.write(header.length() >>> 8);
        out.write(header.getBytes(StandardCharsets.US_ASCII));
    }

    /** Python's tuple syntax: (3,), (2, 3). */
    static String tuple(long[] shape) {
        return shape.length == 1 ? "(" + shape[0] + ",)"
                : Arrays.stream(shape).mapToObj(Long::toString).collect(Collectors.joining(", ", "(", ")"));
    }

    private static void check(int length, long[] shape) {
        long product = Arrays.stream(shape).reduce(1, Math::multiplyExact);
        if (shape.length == 0 || product != length) {
            throw new IllegalArgumentException(length + " values for the shape " + Arrays.toString(shape));
        }
    }
}
