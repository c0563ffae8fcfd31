package org.traindeck.engine.data.numpy;

import java.nio.ByteBuffer;

/**
 * Converts runs of elements inside one mapped window, with absolute reads only (no buffer position is touched, so windows
 * can be shared by threads). One switch per run, a tight loop per type.
 */
final class ElementConverter {

    private ElementConverter() {}

    /** Writes {@code n} elements from byte {@code pos} of {@code b} to {@code dst[off + k * stride]}. */
    static void toFloat(ByteBuffer b, int pos, NpyDType type, int n, float[] dst, int off, int stride) {
        switch (type) {
            case FLOAT32 -> {
                if (stride == 1) {
                    b.slice(pos, n * 4).order(b.order()).asFloatBuffer().get(dst, off, n);
                } else {
                    for (int k = 0; k < n; k++) {
                        dst[off + k * stride] = b.getFloat(pos + 4 * k);
                    }
                }
            }
            case FLOAT64 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = (float) b.getDouble(pos + 8 * k);
                }
            }
            case FLOAT16 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = halfToFloat(b.getShort(pos + 2 * k));
                }
            }
            default -> integersToFloat(b, pos, type, n, dst, off, stride);
        }
    }

    /** As {@link #toFloat} for the integer and bool types. */
    private static void integersToFloat(ByteBuffer b, int pos, NpyDType type, int n, float[] dst, int off, int stride) {
        switch (type) {
            case INT8 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.get(pos + k);
                }
            }
            case UINT8 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.get(pos + k) & 0xff;
                }
            }
            case BOOL -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.get(pos + k) != 0 ? 1f : 0f;
                }
            }
            case INT16 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getShort(pos + 2 * k);
                }
            }
            case UINT16 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getShort(pos + 2 * k) & 0xffff;
                }
            }
            case INT32 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getInt(pos + 4 * k);
                }
            }
            case UINT32 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getInt(pos + 4 * k) & 0xffffffffL;
                }
            }
            case INT64 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getLong(pos + 8 * k);
                }
            }
            case UINT64 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = unsignedToFloat(b.getLong(pos + 8 * k));
                }
            }
        }
    }

    /**
     * Writes {@code n} integer or bool elements as longs. Returns the position {@code k} of the first uint64 value that
     * a long cannot hold (its slot is left as written: negative), or -1 when every value fitted.
     */
    static int toLong(ByteBuffer b, int pos, NpyDType type, int n, long[] dst, int off, int stride) {
        switch (type) {
            case INT8 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.get(pos + k);
                }
            }
            case UINT8 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.get(pos + k) & 0xff;
                }
            }
            case BOOL -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.get(pos + k) != 0 ? 1 : 0;
                }
            }
            case INT16 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getShort(pos + 2 * k);
                }
            }
            case UINT16 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getShort(pos + 2 * k) & 0xffff;
                }
            }
            case INT32 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getInt(pos + 4 * k);
                }
            }
            case UINT32 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getInt(pos + 4 * k) & 0xffffffffL;
                }
            }
            case INT64 -> {
                for (int k = 0; k < n; k++) {
                    dst[off + k * stride] = b.getLong(pos + 8 * k);
                }
            }
            case UINT64 -> {
                int bad = -1;
                for (int k = 0; k < n; k++) {
                    long v = b.getLong(pos + 8 * k);
                    dst[off + k * stride] = v;
                    if (v < 0 && bad < 0) {
                        bad = k;
                    }
                }
                return bad;
            }
            default -> throw new IllegalArgumentException(type + " is not an integer type");
        }
        return -1;
    }

    /** IEEE 754 binary16 to float (Java 17 has no Float.float16ToFloat). Exact: every half is a float. */
    static float halfToFloat(short half) {
        int bits = half & 0xffff;
        int sign = (bits & 0x8000) << 16;
        int exponent = (bits >>> 10) & 0x1f;
        int mantissa = bits & 0x3ff;
        if (exponent == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
        }
        if (exponent == 0) {
            float v = mantissa * 0x1p-24f; // zero or subnormal
            return sign != 0 ? -v : v;
        }
        return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
    }

    static float unsignedToFloat(long v) {
        // halve, keeping the low bit so that rounding stays correct, then double back
        return v >= 0 ? (float) v : ((float) ((v >>> 1) | (v & 1))) * 2f;
    }
}
