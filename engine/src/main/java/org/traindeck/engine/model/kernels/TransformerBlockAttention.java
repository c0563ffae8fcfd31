package org.traindeck.engine.model.kernels;

import org.bytedeco.javacpp.FloatPointer;

/**
 * The block's multi-head attention on rows: per example and head, P = softmax(Q K^T / sqrt(d)) and O = P V as direct
 * {@link Sgemm} calls that read and write each head's columns of qkv [rows, 3C] and of the output [rows, C] in place,
 * and its backward pass. Each [t, t] block of probabilities goes through the heap for the softmax loops.
 */
final class TransformerBlockAttention {

    private TransformerBlockAttention() {}

    static void forward(TransformerBlockBuffers b, int c, int heads, boolean causal) {
        int d = c / heads;
        int t = b.length;
        int tt = t * t;
        float scale = (float) (1 / Math.sqrt(d));
        FloatPointer qkv = b.qkv.pointer;
        for (int e = 0; e < b.mb; e++) {
            long rowsAt = (long) e * t;
            for (int head = 0; head < heads; head++) {
                long q = rowsAt * 3 * c + (long) head * d;
                int pAt = (e * heads + head) * tt;
                Sgemm.multiply(
                        false,
                        true,
                        t,
                        t,
                        d,
                        scale,
                        qkv,
                        q,
                        3 * c,
                        qkv,
                        q + c,
                        3 * c,
                        0,
                        b.probabilities.pointer,
                        pAt,
                        t);
                b.probabilities.buffer.get(pAt, b.block, 0, tt);
                TransformerBlockMath.softmax(b.block, 0, t, causal, b.expScratch);
                b.probabilities.buffer.put(pAt, b.block, 0, tt);
                Sgemm.multiply(
                        false,
                        false,
                        t,
                        d,
                        t,
                        1,
                        b.probabilities.pointer,
                        pAt,
                        t,
                        qkv,
                        q + 2L * c,
                        3 * c,
                        0,
                        b.attended.pointer,
                        rowsAt * c + (long) head * d,
                        c);
            }
        }
    }

    /** From datt (the output's gradient) to dqkv. */
    static void backward(TransformerBlockBuffers b, int c, int heads, boolean causal) {
        int d = c / heads;
        int t = b.length;
        int tt = t * t;
        float scale = (float) (1 / Math.sqrt(d));
        FloatPointer qkv = b.qkv.pointer;
        FloatPointer dqkv = b.dqkv.pointer;
        FloatPointer ds = b.dscores.pointer;
        for (int e = 0; e < b.mb; e++) {
            long rowsAt = (long) e * t;
            for (int head = 0; head < heads; head++) {
                long q = rowsAt * 3 * c + (long) head * d;
                long o = rowsAt * c + (long) head * d;
                int pAt = (e * heads + head) * tt;
                // dP = dO V^T; dV = P^T dO
                Sgemm.multiply(false, true, t, t, d, 1, b.datt.pointer, o, c, qkv, q + 2L * c, 3 * c, 0, ds, 0, t);
                Sgemm.multiply(
                        true,
                        false,
                        t,
                        d,
                        t,
                        1,
                        b.probabilities.pointer,
                        pAt,
                        t,
                        b.datt.pointer,
                        o,
                        c,
                        0,
                        dqkv,
                        q + 2L * c,
                        3 * c);
                b.probabilities.buffer.get(pAt, b.block, 0, tt);
                b.dscores.buffer.get(0, b.dblock, 0, tt);
                TransformerBlockMath.softmaxBackward(b.block, 0, b.dblock, 0, t, scale, causal);
                b.dscores.buffer.put(0, b.dblock, 0, tt);
                // dQ = dS K; dK = dS^T Q
                Sgemm.multiply(false, false, t, d, t, 1, ds, 0, t, qkv, q + c, 3 * c, 0, dqkv, q, 3 * c);
                Sgemm.multiply(true, false, t, d, t, 1, ds, 0, t, qkv, q, 3 * c, 0, dqkv, q + c, 3 * c);
            }
        }
    }
}
