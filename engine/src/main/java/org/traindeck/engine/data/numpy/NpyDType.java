package org.traindeck.engine.data.numpy;

import java.nio.ByteOrder;

/** The element types this reader accepts: plain numbers and booleans, nothing that needs a pickle or has fields. */
public enum NpyDType {
    FLOAT16("float16", 'f', 2),
    FLOAT32("float32", 'f', 4),
    FLOAT64("float64", 'f', 8),
    INT8("int8", 'i', 1),
    INT16("int16", 'i', 2),
    INT32("int32", 'i', 4),
    INT64("int64", 'i', 8),
    UINT8("uint8", 'u', 1),
    UINT16("uint16", 'u', 2),
    UINT32("uint32", 'u', 4),
    UINT64("uint64", 'u', 8),
    BOOL("bool", 'b', 1);

    private final String numpyName;
    private final char kind;
    private final int bytes;

    NpyDType(String numpyName, char kind, int bytes) {
        this.numpyName = numpyName;
        this.kind = kind;
        this.bytes = bytes;
    }

    public int bytes() {
        return bytes;
    }

    public boolean isFloat() {
        return kind == 'f';
    }

    /** Integers and booleans: the types whose values read exactly as longs (uint64 above Long.MAX_VALUE excepted). */
    public boolean isIntegral() {
        return kind != 'f';
    }

    /** NumPy's own name, as users know it from {@code arr.dtype}. */
    public String numpyName() {
        return numpyName;
    }

    /** The descr NumPy writes for this type in the given byte order, e.g. {@code <f4} or {@code |u1}. */
    public String descr(ByteOrder order) {
        char o = bytes == 1 ? '|' : order == ByteOrder.BIG_ENDIAN ? '>' : '<';
        return "" + o + kind + bytes;
    }

    static NpyDType of(char kind, int bytes) {
        for (NpyDType t : values()) {
            if (t.kind == kind && t.bytes == bytes) {
                return t;
            }
        }
        return null;
    }
}
