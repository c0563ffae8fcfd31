package org.traindeck.engine.model.kernels.transformer;

import org.bytedeco.javacpp.FloatPointer;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * The cross-attention's heads: per example and head, scores Q K^T / sqrt(d) [T, S] and their softmax (rows on the
 * heap), O = P V, and the backward pass, as direct {@link Sgemm} calls on each head's columns of the queries [rows,
 * W] and of the keys and values [context rows, 2W].
 */
final class CrossAttentionHeads {

    private CrossAttentionHeads() {}

    static void forward(CrossAttentionBuffers a) {
        int mb = a.mb;
        int t = a.steps;
        int s = a.contextSteps;
        int c = a.width;
        int heads = a.heads;
        int d = c / heads;
        float scale = (float) (1 / Math.sqrt(d));
        FloatPointer q = a.queries.pointer;
        FloatPointer kv = a.keysValues.pointer;
        FloatPointer p = a.probabilities.pointer;
        float[] block = new float[t * s];
        for (int e = 0; e < mb; e++) {
            for (int h = 0; h < heads; h++) {
                long qAt = (long) e * t * c + (long) h * d;
                long kAt = (long) e * s * 2 * c + (long) h * d;
                long pAt = ((long) e * heads + h) * t * s;
                Sgemm.multiply(false, true, t, s, d, scale, q, qAt, c, kv, kAt, 2 * c, 0, p, pAt, s);
                a.probabilities.buffer.get((int) pAt, block, 0, t * s);
                softmaxRows(block, t, s);
                a.probabilities.buffer.put((int) pAt, block, 0, t * s);
                Sgemm.multiply(false, false, t, d, s, 1, p, pAt, s, kv, kAt + c, 2 * c, 0, a.attended.pointer, qAt, c);
            }
        }
    }

    private static void softmaxRows(float[] block, int t, int s) {
        for (int i = 0; i < t; i++) {
            int o = i * s;
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < s; j++) {
                max = Math.max(max, block[o + j]);
            }
            double sum = 0;
            for (int j = 0; j < s; j++) {
                float v = TransformerBlockMath.exp(block[o + j] - max);
                block[o + j] = v;
                sum += v;
            }
            float inv = (float) (1 / sum);
            for (int j = 0; j < s; j++) {
                block[o + j] *= inv;
            }
        }
    }

    /** From the attended values' gradient (in attended's place) to the queries' and the keys' and values'. */
    static void backward(CrossAttentionBuffers a) {
        int mb = a.mb;
        int t = a.steps;
        int s = a.contextSteps;
        int c = a.width;
        int heads = a.heads;
        int d = c / heads;
        float scale = (float) (1 / Math.sqrt(d));
        FloatPointer q = a.queries.pointer;
        FloatPointer kv = a.keysValues.pointer;
        FloatPointer p = a.probabilities.pointer;
        FloatPointer dOut = a.attended.pointer;
        FloatPointer ds = a.dScores.pointer;
        float[] probs = new float[t * s];
        float[] grads = new float[t * s];
        for (int e = 0; e < mb; e++) {
            for (int h = 0; h < heads; h++) {
                long qAt = (long) e * t * c + (long) h * d;
                long kAt = (long) e * s * 2 * c + (long) h * d;
                long pAt = ((long) e * heads + h) * t * s;
                // dP = dO V^T; dV = P^T dO
                Sgemm.multiply(false, true, t, s, d, 1, dOut, qAt, c, kv, kAt + c, 2 * c, 0, ds, 0, s);
                Sgemm.multiply(
                        true, false, s, d, t, 1, p, pAt, s, dOut, qAt, c, 0, a.dKeysValues.pointer, kAt + c, 2 * c);
                a.probabilities.buffer.get((int) pAt, probs, 0, t * s);
                a.dScores.buffer.get(0, grads, 0, t * s);
                for (int i = 0; i < t; i++) {
                    int o = i * s;
                    double dot = 0;
                    for (int j = 0; j < s; j++) {
                        dot += probs[o + j] * grads[o + j];
                    }
                    for (int j = 0; j < s; j++) {
                        grads[o + j] = probs[o + j] * (grads[o + j] - (float) dot) * scale;
                    }
                }
                a.dScores.buffer.put(0, grads, 0, t * s);
                // dQ = dS K; dK = dS^T Q
                Sgemm.multiply(false, false, t, d, s, 1, ds, 0, s, kv, kAt, 2 * c, 0, a.dQueries.pointer, qAt, c);
                Sgemm.multiply(true, false, s, d, t, 1, ds, 0, s, q, qAt, c, 0, a.dKeysValues.pointer, kAt, 2 * c);
            }
        }
    }
}
