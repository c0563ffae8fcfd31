package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads and checks the header of an {@code .npy} stream (format versions 1.0, 2.0 and 3.0) lying at some offset of a file.
 * Everything is decided from the header alone: object and structured arrays are refused before a byte of payload is read.
 */
final class NpyHeaderReader {

    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    /** NumPy itself refuses headers over 10,000 bytes by default; this leaves room for odd writers and stays bounded. */
    static final int MAX_HEADER_BYTES = 1 << 20;

    private static final Set<String> KEYS = Set.of("descr", "fortran_order", "shape");
    private static final String AS_FLOAT =
            " Save it as plain numbers instead, e.g. np.save(path, arr.astype(np.float32)).";

    private NpyHeaderReader() {}

    /**
     * Reads the header of the {@code .npy} stream occupying {@code length} bytes from {@code start} in {@code channel},
     * and checks that it describes exactly the bytes there.
     */
    static NpyHeader read(FileChannel channel, long start, long length, String source) throws IOException {
        if (length < 10) {
            throw new NpyFormatException(
                    source, "only " + length + " bytes long: too short to be an .npy file (truncated?)");
        }
        Prefix prefix = readPrefix(channel, start, length, source);
        if (prefix.length() + prefix.headerLength() > length) {
            throw new NpyFormatException(
                    source,
                    prefix.length(),
                    "the header says it is " + prefix.headerLength() + " bytes long but the file ends after "
                            + (length - prefix.length()) + ": truncated");
        }
        ByteBuffer raw = readFully(channel, start + prefix.length(), (int) prefix.headerLength(), source);
        String text =
                new String(raw.array(), prefix.major() == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        NpyHeader header = interpret(
                PyLiteralParser.parseDict(text, source, prefix.length()),
                source,
                prefix.length(),
                prefix.length() + prefix.headerLength());
        checkDataLength(header, length, source);
        return header;
    }

    /** The magic string and format version, and the header length after them. */
    private record Prefix(int major, int length, long headerLength) {}

    private static Prefix readPrefix(FileChannel channel, long start, long length, String source) throws IOException {
        ByteBuffer prefix = readFully(channel, start, (int) Math.min(12, length), source);
        for (int i = 0; i < MAGIC.length; i++) {
            if (prefix.get(i) != MAGIC[i]) {
                throw new NpyFormatException(source, i, "not an .npy file: the magic string \\x93NUMPY is missing");
            }
        }
        int major = prefix.get(6) & 0xff;
        int minor = prefix.get(7) & 0xff;
        Prefix read;
        if (major == 1 && minor == 0) {
            read = new Prefix(major, 10, prefix.order(ByteOrder.LITTLE_ENDIAN).getShort(8) & 0xffff);
        } else if ((major == 2 || major == 3) && minor == 0) {
            if (length < 12) {
                throw new NpyFormatException(source, "only " + length + " bytes long: truncated inside the header");
            }
            read = new Prefix(major, 12, prefix.order(ByteOrder.LITTLE_ENDIAN).getInt(8) & 0xffffffffL);
        } else {
            throw new NpyFormatException(
                    source,
                    6,
                    "unsupported .npy format version " + major + "." + minor + " (this reader knows 1.0, 2.0 and 3.0)");
        }
        if (read.headerLength() > MAX_HEADER_BYTES) {
            throw new NpyFormatException(
                    source,
                    8,
                    "header length " + read.headerLength() + " is over the limit of " + MAX_HEADER_BYTES + " bytes");
        }
        return read;
    }

    /** The stream must hold exactly the bytes the header describes after it. */
    private static void checkDataLength(NpyHeader header, long length, String source) throws NpyFormatException {
        long expected = header.dataBytes();
        long actual = length - header.dataOffset();
        if (actual < expected) {
            throw new NpyFormatException(
                    source,
                    header.dataOffset(),
                    "the header describes " + header.describe()
                            + ", " + expected + " bytes of data, but the file holds only " + actual
                            + " bytes after the header"
                            + " (" + length + " bytes in all): truncated or damaged");
        }
        if (actual > expected) {
            throw new NpyFormatException(
                    source,
                    header.dataOffset() + expected,
                    "the header describes "
                            + header.describe() + ", " + expected + " bytes of data, but " + (actual - expected)
                            + " more bytes follow it (" + length
                            + " bytes in all): damaged, or not written by np.save");
        }
    }

    private static NpyHeader interpret(Map<String, Object> dict, String source, long dictAt, long dataOffset)
            throws NpyFormatException {
        for (String key : dict.keySet()) {
            if (!KEYS.contains(key)) {
                throw new NpyFormatException(source, dictAt, "unexpected key '" + key + "' in the header dict");
            }
        }
        for (String key : KEYS) {
            if (!dict.containsKey(key)) {
                throw new NpyFormatException(source, dictAt, "the header dict has no '" + key + "'");
            }
        }
        Object descr = dict.get("descr");
        if (!(descr instanceof String d)) {
            throw new NpyFormatException(
                    source,
                    dictAt,
                    "structured arrays (dtype with fields: " + descr + ") are not supported." + AS_FLOAT);
        }
        NpyDType dtype = dtype(d, source, dictAt);
        ByteOrder order = d.charAt(0) == '>' ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        if (!(dict.get("fortran_order") instanceof Boolean fortran)) {
            throw new NpyFormatException(
                    source, dictAt, "'fortran_order' is " + dict.get("fortran_order") + ", not True or False");
        }
        long[] shape = shape(dict.get("shape"), source, dictAt);
        return new NpyHeader(dtype, order, fortran, shape, dataOffset);
    }

    private static NpyDType dtype(String descr, String source, long at) throws NpyFormatException {
        if (descr.length() >= 2 && descr.charAt(1) == 'O') {
            throw new NpyFormatException(
                    source,
                    at,
                    "holds an object array (dtype '" + descr + "'): its data is a"
                            + " Python pickle, which is code that would run when loaded, so it is refused and never read."
                            + AS_FLOAT);
        }
        char orderChar = descr.isEmpty() ? '?' : descr.charAt(0);
        NpyDType type = null;
        if (descr.length() >= 3 && (orderChar == '<' || orderChar == '>' || orderChar == '|')) {
            try {
                type = NpyDType.of(descr.charAt(1), Integer.parseInt(descr.substring(2)));
            } catch (NumberFormatException e) {
                type = null;
            }
        }
        if (type == null) {
            throw new NpyFormatException(
                    source,
                    at,
                    "unsupported dtype '" + descr + "' (this reader takes float16/32/64,"
                            + " int8/16/32/64, uint8/16/32/64 and bool; not strings, complex numbers, dates or records)."
                            + AS_FLOAT);
        }
        if (orderChar == '|' && type.bytes() > 1) {
            throw new NpyFormatException(
                    source, at, "dtype '" + descr + "' has " + type.bytes() + "-byte elements but no byte order");
        }
        return type;
    }

    private static long[] shape(Object value, String source, long at) throws NpyFormatException {
        if (!(value instanceof List<?> dims)) {
            throw new NpyFormatException(source, at, "'shape' is " + value + ", not a tuple of integers");
        }
        long[] shape = new long[dims.size()];
        long product = 1;
        for (int k = 0; k < shape.length; k++) {
            if (!(dims.get(k) instanceof Long d) || d < 0) {
                throw new NpyFormatException(
                        source, at, "'shape' " + dims + " has " + dims.get(k) + " where a size of 0 or more belongs");
            }
            shape[k] = d;
            try {
                product = Math.multiplyExact(product, d);
            } catch (ArithmeticException e) {
                throw new NpyFormatException(
                        source, at, "'shape' " + dims + " has more elements than a long can count");
            }
        }
        try {
            Math.multiplyExact(product, 8L);
        } catch (ArithmeticException e) {
            throw new NpyFormatException(source, at, "'shape' " + dims + " describes more bytes than a long can count");
        }
        return shape;
    }

    /** Reads exactly {@code count} bytes at {@code position}; the file shrinking underneath is reported, not looped on. */
    static ByteBuffer readFully(FileChannel channel, long position, int count, String source) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(count);
        while (buf.hasRemaining()) {
            if (channel.read(buf, position + buf.position()) < 0) {
                throw new NpyFormatException(
                        source,
                        position + buf.position(),
                        "unexpected end of file (did it shrink" + " while being read?)");
            }
        }
        return buf.flip();
    }
}
