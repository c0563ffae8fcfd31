package org.traindeck.engine.data.numpy;

import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * What an {@code .npy} header says. {@code dataOffset} counts from the start of the {@code .npy} stream (for an
 * {@code .npz} member, from the member's first byte). A 0-d array has an empty shape and holds one value.
 * Construct through {@link NpyHeaderReader}, which has checked the shape's products for overflow.
 */
public record NpyHeader(NpyDType dtype, ByteOrder order, boolean fortranOrder, long[] shape, long dataOffset) {

    public NpyHeader {
        shape = shape.clone();
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    public int rank() {
        return shape.length;
    }

    public long elementCount() {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    public long dataBytes() {
        return Math.multiplyExact(elementCount(), (long) dtype.bytes());
    }

    /** Rows along the first axis; a 0-d array counts as one sample of one value. */
    public long sampleCount() {
        return shape.length == 0 ? 1 : shape[0];
    }

    /** Values per sample: the product of every axis but the first (1 for 0-d and 1-d arrays). */
    public long sampleLength() {
        long n = 1;
        for (int k = 1; k < shape.length; k++) {
            n = Math.multiplyExact(n, shape[k]);
        }
        return n;
    }

    /** e.g. {@code float32 [60000, 28, 28] C order, little-endian}. */
    public String describe() {
        String s = dtype.numpyName() + " " + Arrays.toString(shape) + (fortranOrder ? " Fortran order" : " C order");
        if (dtype.bytes() > 1) {
            s += order == ByteOrder.BIG_ENDIAN ? ", big-endian" : ", little-endian";
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NpyHeader h
                && h.dtype == dtype
                && h.order.equals(order)
                && h.fortranOrder == fortranOrder
                && Arrays.equals(h.shape, shape)
                && h.dataOffset == dataOffset;
    }

    @Override
    public int hashCode() {
        return (dtype.hashCode() * 31 + Arrays.hashCode(shape)) * 31 + Long.hashCode(dataOffset);
    }

    @Override
    public String toString() {
        return describe() + ", data at byte " + dataOffset;
    }
}
