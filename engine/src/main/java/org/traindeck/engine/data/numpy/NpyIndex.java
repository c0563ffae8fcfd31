package org.traindeck.engine.data.numpy;

/** Index arithmetic between linear positions and multi-indices, in C and Fortran order. */
final class NpyIndex {

    private NpyIndex() {}

    /** The multi-index of C-order position {@code linear}. */
    static long[] multiIndex(long linear, long[] shape) {
        long[] index = new long[shape.length];
        long rest = linear;
        for (int k = shape.length - 1; k >= 0; k--) {
            index[k] = rest % shape[k];
            rest /= shape[k];
        }
        return index;
    }

    /** The C-order position of the element at Fortran-order position {@code linear}. */
    static long fortranToC(long linear, long[] shape) {
        long rest = linear;
        long c = 0;
        long stride = 1;
        long[] index = new long[shape.length];
        for (int k = 0; k < shape.length; k++) {
            index[k] = rest % shape[k];
            rest /= shape[k];
        }
        for (int k = shape.length - 1; k >= 0; k--) {
            c += index[k] * stride;
            stride *= shape[k];
        }
        return c;
    }
}
