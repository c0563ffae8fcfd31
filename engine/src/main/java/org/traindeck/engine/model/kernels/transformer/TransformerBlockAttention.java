package org.traindeck.engine.model.kernels.transformer;

import org.bytedeco.javacpp.FloatPointer;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers.Region;

/**
 * The block's multi-head attention on rows: per example and head, P = softmax(Q K^T / sqrt(d)) and O = P V as direct
 * {@link Sgemm} calls that read and write each head's columns of qkv [rows, 3C] and of the output [rows, C] in place,
 * and its backward pass. The scores are computed transposed (K Q^T), one example's heads side by side in one
 * [t, heads t] block ({@link TransformerBlockSoftmax}), which goes through the heap once per example for the softmax
 * loops; the products read it transposed back where they need P.
 */
final class TransformerBlockAttention {

    private TransformerBlockAttention() {}

    /** From qkv to {@code attended} [rows, C]: the buffers' own region, or one a recomputing block keeps. */
    static void forward(TransformerBlockBuffers b, Region attended, int c, int heads, boolean causal) {
        int d = c / heads;
        int t = b.length;
        int w = heads * t;
        FloatPointer qkv = b.qkv.pointer;
        FloatPointer p = b.probabilities.pointer;
        for (int e = 0; e < b.mb; e++) {
            long rowsAt = (long) e * t;
            long pAt = probabilities(b, e, c, heads, causal);
            for (int head = 0; head < heads; head++) {
                long q = rowsAt * 3 * c + (long) head * d;
                // O = P V = (P^T)^T V
                Sgemm.multiply(
                        true,
                        false,
                        t,
                        d,
                        t,
                        1,
                        p,
                        pAt + (long) head * t,
                        w,
                        qkv,
                        q + 2L * c,
                        3 * c,
                        0,
                        attended.pointer,
                        rowsAt * c + (long) head * d,
                        c);
            }
        }
    }

    /**
     * Example e's probabilities into its [t, heads t] block of the probabilities buffer, whose offset it returns: the
     * example's own block, or the one block that a buffer holding a single example has (recompute: the backward pass
     * computes them again, example by example, instead of keeping [mb, heads, t, t] floats).
     */
    private static long probabilities(TransformerBlockBuffers b, int e, int c, int heads, boolean causal) {
        int d = c / heads;
        int t = b.length;
        int w = heads * t;
        int block = t * w;
        float scale = (float) (1 / Math.sqrt(d));
        FloatPointer qkv = b.qkv.pointer;
        FloatPointer p = b.probabilities.pointer;
        long rowsAt = (long) e * t;
        long pAt = b.probabilitiesPerExample ? 0 : (long) e * block;
        for (int head = 0; head < heads; head++) {
            long q = rowsAt * 3 * c + (long) head * d;
            // S^T = K Q^T, into columns head t .. head t + t of the example's block
            Sgemm.multiply(
                    false, true, t, t, d, scale, qkv, q + c, 3 * c, qkv, q, 3 * c, 0, p, pAt + (long) head * t, w);
        }
        b.probabilities.buffer.get((int) pAt, b.block, 0, block);
        TransformerBlockSoftmax.forward(b.block, t, heads, causal, b.column, b.expScratch);
        b.probabilities.buffer.put((int) pAt, b.block, 0, block);
        return pAt;
    }

    /** From datt (the output's gradient) to dqkv. */
    static void backward(TransformerBlockBuffers b, int c, int heads, boolean causal) {
        int d = c / heads;
        int t = b.length;
        int w = heads * t;
        int block = t * w;
        float scale = (float) (1 / Math.sqrt(d));
        FloatPointer qkv = b.qkv.pointer;
        FloatPointer dqkv = b.dqkv.pointer;
        FloatPointer p = b.probabilities.pointer;
        FloatPointer ds = b.dscores.pointer;
        for (int e = 0; e < b.mb; e++) {
            long rowsAt = (long) e * t;
            long pAt = b.probabilitiesPerExample ? probabilities(b, e, c, heads, causal) : (long) e * block;
            for (int head = 0; head < heads; head++) {
                long q = rowsAt * 3 * c + (long) head * d;
                long o = rowsAt * c + (long) head * d;
                long at = (long) head * t;
                // dP^T = V dO^T; dV = P^T dO
                Sgemm.multiply(false, true, t, t, d, 1, qkv, q + 2L * c, 3 * c, b.datt.pointer, o, c, 0, ds, at, w);
                Sgemm.multiply(
                        false, false, t, d, t, 1, p, pAt + at, w, b.datt.pointer, o, c, 0, dqkv, q + 2L * c, 3 * c);
            }
            b.probabilities.buffer.get((int) pAt, b.block, 0, block);
            b.dscores.buffer.get(0, b.dblock, 0, block);
            TransformerBlockSoftmax.backward(b.block, b.dblock, t, heads, scale, b.column, b.expScratch);
            b.dscores.buffer.put(0, b.dblock, 0, block);
            for (int head = 0; head < heads; head++) {
                long q = rowsAt * 3 * c + (long) head * d;
                long at = (long) head * t;
                // dQ = dS K = (dS^T)^T K; dK = dS^T Q
                Sgemm.multiply(true, false, t, d, t, 1, ds, at, w, qkv, q + c, 3 * c, 0, dqkv, q, 3 * c);
                Sgemm.multiply(false, false, t, d, t, 1, ds, at, w, qkv, q, 3 * c, 0, dqkv, q + c, 3 * c);
            }
        }
    }
}
