package org.traindeck.engine.model.kernels.transformer;

import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.QKV_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.QKV_WEIGHTS;

import org.traindeck.engine.model.kernels.KernelParameters;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers;

/** The attention's input projection qkv = h1 Wqkv + bqkv [rows, 3C] and its backward pass, as {@link Sgemm} calls. */
final class TransformerBlockQkv {

    private TransformerBlockQkv() {}

    /** qkv = h1 Wqkv + bqkv: the bias as a product with a column of ones, then the projection added to it. */
    static void forward(TransformerBlockBuffers b, int c, KernelParameters p) {
        int n = b.rows;
        Sgemm.multiply(
                false,
                false,
                n,
                3 * c,
                1,
                1,
                b.ones.pointer,
                0,
                1,
                p.pointer(QKV_BIAS),
                0,
                3 * c,
                0,
                b.qkv.pointer,
                0,
                3 * c);
        Sgemm.multiply(
                false,
                false,
                n,
                3 * c,
                c,
                1,
                b.h1.pointer,
                0,
                c,
                p.pointer(QKV_WEIGHTS),
                0,
                3 * c,
                1,
                b.qkv.pointer,
                0,
                3 * c);
    }

    /** The attention's input projection backward: bqkv's and Wqkv's gradients, and h1's into dh. */
    static void backward(TransformerBlockBuffers b, int c, KernelParameters p) {
        int n = b.rows;
        Sgemm.columnSums(n, 3 * c, b.dqkv.pointer, 0, 3 * c, b.ones.pointer, p.gradientPointer(QKV_BIAS), 0);
        Sgemm.multiply(
                true,
                false,
                c,
                3 * c,
                n,
                1,
                b.h1.pointer,
                0,
                c,
                b.dqkv.pointer,
                0,
                3 * c,
                0,
                p.gradientPointer(QKV_WEIGHTS),
                0,
                3 * c);
        Sgemm.multiply(
                false,
                true,
                n,
                c,
                3 * c,
                1,
                b.dqkv.pointer,
                0,
                3 * c,
                p.pointer(QKV_WEIGHTS),
                0,
                3 * c,
                0,
                b.dh.pointer,
                0,
                c);
    }
}
