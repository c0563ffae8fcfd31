package org.traindeck.engine.use.export;

import java.util.Arrays;

/** One exported tensor: its PyTorch-style name, its shape, and its float32 values in row-major (C) order. */
public record NamedTensor(String name, long[] shape, float[] values) {

    public NamedTensor {
        shape = shape.clone();
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        if (n != values.length) {
            throw new IllegalArgumentException(
                    name + ": shape " + Arrays.toString(shape) + " holds " + n + " values, not " + values.length);
        }
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    public long bytes() {
        return 4L * values.length;
    }
}
