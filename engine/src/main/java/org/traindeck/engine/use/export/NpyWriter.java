package org.traindeck.engine.use.export;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * One float32 array as an {@code .npy} file, format version 1.0: the magic string, the version, a little-endian uint16
 * header length, then a Python dict literal (dtype, C order, shape) padded with spaces and a newline so that the data
 * starts at a multiple of 64 bytes, then the values, little-endian.
 */
final class NpyWriter {

    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};

    private NpyWriter() {
    }

    static byte[] bytes(NamedTensor t) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, t.bytes() + 128));
        write(t, out);
        return out.toByteArray();
    }

    static void write(NamedTensor t, OutputStream out) throws IOException {
        String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + tuple(t.shape()) + ", }";
        int unpadded = MAGIC.length + 2 + dict.length() + 1;
        int total = (unpadded + 63) / 64 * 64;
        String header = dict + " ".repeat(total - unpadded) + "\n";
        out.write(MAGIC);
        out.write(header.length() & 0xff);
        out.write(header.length() >>> 8);
        out.write(header.getBytes(StandardCharsets.US_ASCII));
        TensorBytes.write(t.values(), out);
    }

    /** Python's tuple syntax: (), (3,), (2, 3). */
    static String tuple(long[] shape) {
        if (shape.length == 1) {
            return "(" + shape[0] + ",)";
        }
        return Arrays.stream(shape).mapToObj(Long::toString).collect(Collectors.joining(", ", "(", ")"));
    }
}
