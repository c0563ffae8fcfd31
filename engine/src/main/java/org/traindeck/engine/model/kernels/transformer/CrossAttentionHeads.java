package org.traindeck.engine.model.kernels.transformer;

import org.bytedeco.javacpp.FloatPointer;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * The cross-attention's heads: per example and head, the scores transposed, S^T = K Q^T / sqrt(d) [S, T], one
 * example's heads side by side in one [S, heads T] block whose softmax runs down the columns in vectorised loops
 * ({@link TransformerBlockSoftmax}, as the self-attention's), then O = P V; and the backward pass. All products are
 * direct {@link Sgemm} calls on each head's columns of the queries [rows, W] and of the keys and values [context
 * rows, 2W].
 */
final class CrossAttentionHeads {

    private CrossAttentionHeads() {}

    static void forward(CrossAttentionBuffers a) {
        int t = a.steps;
        int s = a.contextSteps;
        int c = a.width;
        int heads = a.heads;
        int d = c / heads;
        int w = heads * t;
        int block = s * w;
        float scale = (float) (1 / Math.sqrt(d));
        FloatPointer q = a.queries.pointer;
        FloatPointer kv = a.keysValues.pointer;
        FloatPointer p = a.probabilities.pointer;
        for (int e = 0; e < a.mb; e++) {
            long pAt = (long) e * block;
            for (int h = 0; h < heads; h++) {
                long qAt = (long) e * t * c + (long) h * d;
                long kAt = (long) e * s * 2 * c + (long) h * d;
                Sgemm.multiply(false, true, s, t, d, scale, kv, kAt, 2 * c, q, qAt, c, 0, p, pAt + (long) h * t, w);
            }
            a.probabilities.buffer.get((int) pAt, a.block, 0, block);
            TransformerBlockSoftmax.forward(a.block, s, t, heads, false, a.column, a.expScratch);
            a.probabilities.buffer.put((int) pAt, a.block, 0, block);
            for (int h = 0; h < heads; h++) {
                long qAt = (long) e * t * c + (long) h * d;
                long kAt = (long) e * s * 2 * c + (long) h * d;
                // O = P V = (P^T)^T V
                Sgemm.multiply(
                        true,
                        false,
                        t,
                        d,
                        s,
                        1,
                        p,
                        pAt + (long) h * t,
                        w,
                        kv,
                        kAt + c,
                        2 * c,
                        0,
                        a.attended.pointer,
                        qAt,
                        c);
            }
        }
    }

    /** From the attended values' gradient (in attended's place) to the queries' and the keys' and values'. */
    static void backward(CrossAttentionBuffers a) {
        int t = a.steps;
        int s = a.contextSteps;
        int c = a.width;
        int heads = a.heads;
        int d = c / heads;
        int w = heads * t;
        int block = s * w;
        float scale = (float) (1 / Math.sqrt(d));
        FloatPointer q = a.queries.pointer;
        FloatPointer kv = a.keysValues.pointer;
        FloatPointer p = a.probabilities.pointer;
        FloatPointer dOut = a.attended.pointer;
        FloatPointer ds = a.dScores.pointer;
        FloatPointer dkv = a.dKeysValues.pointer;
        for (int e = 0; e < a.mb; e++) {
            long pAt = (long) e * block;
            for (int h = 0; h < heads; h++) {
                long qAt = (long) e * t * c + (long) h * d;
                long kAt = (long) e * s * 2 * c + (long) h * d;
                long at = (long) h * t;
                // dP^T = V dO^T; dV = P^T dO
                Sgemm.multiply(false, true, s, t, d, 1, kv, kAt + c, 2 * c, dOut, qAt, c, 0, ds, at, w);
                Sgemm.multiply(false, false, s, d, t, 1, p, pAt + at, w, dOut, qAt, c, 0, dkv, kAt + c, 2 * c);
            }
            a.probabilities.buffer.get((int) pAt, a.block, 0, block);
            a.dScores.buffer.get(0, a.dBlock, 0, block);
            TransformerBlockSoftmax.backward(a.block, a.dBlock, s, t, heads, scale, a.column, a.expScratch);
            a.dScores.buffer.put(0, a.dBlock, 0, block);
            for (int h = 0; h < heads; h++) {
                long qAt = (long) e * t * c + (long) h * d;
                long kAt = (long) e * s * 2 * c + (long) h * d;
                long at = (long) h * t;
                // dQ = dS K = (dS^T)^T K; dK = dS^T Q
                Sgemm.multiply(true, false, t, d, s, 1, ds, at, w, kv, kAt, 2 * c, 0, a.dQueries.pointer, qAt, c);
                Sgemm.multiply(false, false, s, d, t, 1, ds, at, w, q, qAt, c, 0, dkv, kAt, 2 * c);
            }
        }
    }
}
