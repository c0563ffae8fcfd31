package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The start of an {@code .npy} file as NumPy writes it (format 1.0, C order): the magic string, the version, a
 * little-endian uint16 header length, then a Python dict literal padded with spaces and a newline so that the data
 * starts at a multiple of 64 bytes. The reader's counterpart for TrainDeck's own outputs (predict, export).
 */
public final class NpyHeaderWriter {

    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};

    private NpyHeaderWriter() {}

    /** @param descr NumPy's dtype string, such as {@code <f4} or {@code <i8} */
    public static void write(String descr, long[] shape, OutputStream out) throws IOException {
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + tuple(shape) + ", }";
        int unpadded = MAGIC.length + 2 + dict.length() + 1;
        int total = (unpadded + 63) / 64 * 64;
        String header = dict + " ".repeat(total - unpadded) + "\n";
        out.write(MAGIC);
        out.write(header.length() & 0xff);
        out.write(header.length() >>> 8);
        out.write(header.getBytes(StandardCharsets.US_ASCII));
    }

    /** Python's tuple syntax: (), (3,), (2, 3). */
    public static String tuple(long[] shape) {
        return shape.length == 1
                ? "(" + shape[0] + ",)"
                : Arrays.stream(shape).mapToObj(Long::toString).collect(Collectors.joining(", ", "(", ")"));
    }
}
