package org.traindeck.engine.library.tfevents;

import java.nio.charset.StandardCharsets;

/**
 * The few protobuf wire-format reads an Event needs (varints, fixed 32 and 64 bits, length-delimited fields), over a
 * slice of a record's bytes; a protobuf dependency for five messages is not worth it. Every length is checked against
 * the slice, so a hostile record ends in a {@link Malformed}, never in a large allocation or a read past its end.
 */
final class ProtoInput {

    static final int VARINT = 0;
    static final int FIXED64 = 1;
    static final int LENGTH_DELIMITED = 2;
    static final int FIXED32 = 5;

    /** A record's bytes that are not the protobuf they should be; {@code position} is within the record. */
    static final class Malformed extends Exception {
        final int position;

        Malformed(int position, String problem) {
            super(problem);
            this.position = position;
        }
    }

    private final byte[] bytes;
    private int position;
    private final int end;

    ProtoInput(byte[] bytes, int from, int to) {
        this.bytes = bytes;
        this.position = from;
        this.end = to;
    }

    boolean atEnd() {
        return position >= end;
    }

    int position() {
        return position;
    }

    int remaining() {
        return end - position;
    }

    /** The next field's key: field number in the high bits, wire type in the low three. */
    long key() throws Malformed {
        long key = varint();
        if ((key >>> 3) == 0) {
            throw new Malformed(position, "field number 0");
        }
        return key;
    }

    long varint() throws Malformed {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (position >= end) {
                throw new Malformed(position, "a varint runs past the end of its message");
            }
            int b = bytes[position++] & 0xff;
            result |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new Malformed(position, "a varint longer than 10 bytes");
    }

    long fixed64() throws Malformed {
        need(8);
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (bytes[position + i] & 0xff);
        }
        position += 8;
        return v;
    }

    int fixed32() throws Malformed {
        need(4);
        int v = (bytes[position] & 0xff)
                | (bytes[position + 1] & 0xff) << 8
                | (bytes[position + 2] & 0xff) << 16
                | (bytes[position + 3] & 0xff) << 24;
        position += 4;
        return v;
    }

    double float64() throws Malformed {
        return Double.longBitsToDouble(fixed64());
    }

    float float32() throws Malformed {
        return Float.intBitsToFloat(fixed32());
    }

    /** A length-delimited field's contents, read in place. */
    ProtoInput message() throws Malformed {
        int length = length();
        ProtoInput inner = new ProtoInput(bytes, position, position + length);
        position += length;
        return inner;
    }

    String string() throws Malformed {
        int length = length();
        String s = new String(bytes, position, length, StandardCharsets.UTF_8);
        position += length;
        return s;
    }

    /** The bytes of what is left of this message (a tensor's content), copied. */
    byte[] rest() {
        byte[] copy = new byte[end - position];
        System.arraycopy(bytes, position, copy, 0, copy.length);
        position = end;
        return copy;
    }

    /** Skips a field of the given wire type; groups (3, 4) and unknown wire types are malformed here. */
    void skip(int wireType) throws Malformed {
        switch (wireType) {
            case VARINT -> varint();
            case FIXED64 -> skipBytes(8);
            case LENGTH_DELIMITED -> skipBytes(length());
            case FIXED32 -> skipBytes(4);
            default -> throw new Malformed(position, "wire type " + wireType + " is not used by event files");
        }
    }

    private void skipBytes(int n) throws Malformed {
        need(n);
        position += n;
    }

    private int length() throws Malformed {
        long length = varint();
        if (length < 0 || length > end - position) {
            throw new Malformed(position, "a field of " + length + " bytes runs past the end of its message");
        }
        return (int) length;
    }

    private void need(int n) throws Malformed {
        if (end - position < n) {
            throw new Malformed(position, "a " + n + "-byte field runs past the end of its message");
        }
    }
}
