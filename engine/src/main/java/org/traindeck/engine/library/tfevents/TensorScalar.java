package org.traindeck.engine.library.tfevents;

import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.library.tfevents.ProtoInput.Malformed;

/**
 * A tensorflow.TensorProto read for one number: its dtype, its shape, and its values either as {@code tensor_content}
 * (raw little-endian, as tf.summary writes them) or as the typed repeated fields (as PyTorch's {@code float_val}).
 * Only numeric tensors of one element count as a scalar; strings (text summaries) and larger tensors do not.
 */
record TensorScalar(int dtype, long elements, List<Double> values, byte[] content) {

    // tensorflow.DataType
    static final int DT_FLOAT = 1;
    static final int DT_DOUBLE = 2;
    static final int DT_INT32 = 3;
    static final int DT_INT64 = 9;
    static final int DT_HALF = 19;

    // TensorProto fields
    private static final int DTYPE = 1;
    private static final int SHAPE = 2;
    private static final int CONTENT = 4;
    private static final int FLOAT_VAL = 5;
    private static final int DOUBLE_VAL = 6;
    private static final int INT_VAL = 7;
    private static final int INT64_VAL = 10;
    private static final int HALF_VAL = 13;

    static TensorScalar read(ProtoInput in) throws Malformed {
        int dtype = 0;
        long elements = 1;
        List<Double> values = new ArrayList<>(1);
        byte[] content = null;
        while (!in.atEnd()) {
            long key = in.key();
            int field = (int) (key >>> 3);
            int wire = (int) (key & 7);
            if (field == DTYPE && wire == ProtoInput.VARINT) {
                dtype = (int) in.varint();
            } else if (field == SHAPE && wire == ProtoInput.LENGTH_DELIMITED) {
                elements = elements(in.message());
            } else if (field == CONTENT && wire == ProtoInput.LENGTH_DELIMITED) {
                ProtoInput bytes = in.message();
                // a scalar's content is at most 8 bytes: a longer one is not copied
                content = bytes.remaining() <= 8 ? bytes.rest() : null;
            } else if (field == FLOAT_VAL
                    || field == DOUBLE_VAL
                    || field == INT_VAL
                    || field == INT64_VAL
                    || field == HALF_VAL) {
                repeated(in, field, wire, values);
            } else {
                in.skip(wire);
            }
        }
        return new TensorScalar(dtype, elements, values, content);
    }

    boolean isScalar() {
        return elements == 1 && value() != null;
    }

    /** The one number, or null when the dtype is not numeric or no value is there. */
    Double value() {
        if (!values.isEmpty()) {
            return values.size() == 1 ? values.get(0) : null;
        }
        if (content == null) {
            return null;
        }
        return switch (dtype) {
            case DT_FLOAT -> content.length == 4 ? (double) Float.intBitsToFloat((int) littleEndian(4)) : null;
            case DT_DOUBLE -> content.length == 8 ? Double.longBitsToDouble(littleEndian(8)) : null;
            case DT_INT32 -> content.length == 4 ? (double) (int) littleEndian(4) : null;
            case DT_INT64 -> content.length == 8 ? (double) littleEndian(8) : null;
            case DT_HALF -> content.length == 2 ? (double) halfToFloat((int) littleEndian(2)) : null;
            default -> null;
        };
    }

    private long littleEndian(int n) {
        long v = 0;
        for (int i = n - 1; i >= 0; i--) {
            v = (v << 8) | (content[i] & 0xff);
        }
        return v;
    }

    /** IEEE 754 half precision to float (Float.float16ToFloat is Java 20's). */
    static float halfToFloat(int bits) {
        int sign = (bits & 0x8000) << 16;
        int exponent = (bits >>> 10) & 0x1f;
        int mantissa = bits & 0x3ff;
        if (exponent == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | mantissa << 13);
        }
        if (exponent == 0) {
            float subnormal = mantissa / 1024f / 16384f;
            return sign == 0 ? subnormal : -subnormal;
        }
        return Float.intBitsToFloat(sign | (exponent + 112) << 23 | mantissa << 13);
    }

    /** TensorShapeProto{dim=2 {size=1}}: the product of the sizes (1 for a scalar, which has none). */
    private static long elements(ProtoInput shape) throws Malformed {
        long elements = 1;
        while (!shape.atEnd()) {
            long key = shape.key();
            if ((key >>> 3) == 2 && (key & 7) == ProtoInput.LENGTH_DELIMITED) {
                ProtoInput dim = shape.message();
                while (!dim.atEnd()) {
                    long k = dim.key();
                    if ((k >>> 3) == 1 && (k & 7) == ProtoInput.VARINT) {
                        long size = dim.varint();
                        elements = size < 0 || elements > 1 << 20 ? Long.MAX_VALUE : elements * size;
                    } else {
                        dim.skip((int) (k & 7));
                    }
                }
            } else {
                shape.skip((int) (key & 7));
            }
        }
        return elements;
    }

    /** One value or a packed run of them; more than one value means the tensor is not a scalar (the rest is skipped). */
    private static void repeated(ProtoInput in, int field, int wire, List<Double> values) throws Malformed {
        if (wire == ProtoInput.LENGTH_DELIMITED) {
            ProtoInput packed = in.message();
            while (!packed.atEnd() && values.size() < 2) {
                values.add(one(packed, field));
            }
        } else if (wire == expectedWire(field)) {
            double v = one(in, field);
            if (values.size() < 2) {
                values.add(v);
            }
        } else {
            in.skip(wire);
        }
    }

    private static int expectedWire(int field) {
        return switch (field) {
            case FLOAT_VAL -> ProtoInput.FIXED32;
            case DOUBLE_VAL -> ProtoInput.FIXED64;
            default -> ProtoInput.VARINT;
        };
    }

    private static double one(ProtoInput in, int field) throws Malformed {
        return switch (field) {
            case FLOAT_VAL -> in.float32();
            case DOUBLE_VAL -> in.float64();
            case INT_VAL -> (int) in.varint();
            case HALF_VAL -> halfToFloat((int) in.varint());
            default -> in.varint();
        };
    }
}
