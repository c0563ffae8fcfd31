package org.traindeck.engine.model.kernels.transformer;

import java.util.Arrays;
import org.traindeck.engine.model.kernels.FloatExp;

/**
 * The attention's softmax on one example's scores laid out transposed and side by side: row j (a key) holds, for
 * every head h and query i, the score at column h t + i ([t, heads t]). The softmax runs over the keys, i.e. down
 * each column, so its maxima, sums and the backward pass's dot products are elementwise operations on whole rows of
 * heads × t floats, which C2 vectorises; a row-wise softmax on [t, t] blocks spends its time in scalar reductions of
 * t floats each.
 */
final class TransformerBlockSoftmax {

    /** Each thread's row-sized arrays (maxima and sums, or dot products), kept from call to call (cpu:N: per replica). */
    private static final ThreadLocal<float[][]> ROWS = ThreadLocal.withInitial(() -> new float[2][0]);

    private TransformerBlockSoftmax() {}

    /**
     * In place: each column of {@code s} [t, width] (width = heads t) becomes the softmax of its entries; causal: key
     * j counts only for the queries i >= j, and the others become 0. {@code column} holds three width-long rows,
     * {@code scratch} one.
     */
    static void forward(float[] s, int t, int heads, boolean causal, float[] column, float[] scratch) {
        forward(s, t, t, heads, causal, column, scratch);
    }

    /**
     * The same over {@code keys} rows of queries t (a cross-attention's [keys, heads t] block); causal only where keys
     * and queries are one sequence (keys = t).
     */
    static void forward(float[] s, int keys, int t, int heads, boolean causal, float[] column, float[] scratch) {
        int w = heads * t;
        if (causal) {
            for (int j = 1; j < keys; j++) {
                for (int h = 0; h < heads; h++) {
                    int o = j * w + h * t;
                    Arrays.fill(s, o, o + j, Float.NEGATIVE_INFINITY);
                }
            }
        }
        // each row goes through a row-sized array: C2 vectorises a loop whose arrays are all read at the same index,
        // not one that reads s[at + i] beside max[i] (it cannot rule out that they are one array)
        float[] max = keptRow(0, w);
        float[] sum = keptRow(1, w);
        Arrays.fill(sum, 0, w, 0f);
        float[] row = column;
        System.arraycopy(s, 0, max, 0, w);
        for (int j = 1; j < keys; j++) {
            System.arraycopy(s, j * w, row, 0, w);
            for (int i = 0; i < w; i++) {
                max[i] = Math.max(max[i], row[i]);
            }
        }
        for (int j = 0; j < keys; j++) {
            System.arraycopy(s, j * w, row, 0, w);
            for (int i = 0; i < w; i++) {
                row[i] -= max[i];
            }
            FloatExp.expInPlace(row, scratch, 0, w);
            for (int i = 0; i < w; i++) {
                sum[i] += row[i];
            }
            System.arraycopy(row, 0, s, j * w, w);
        }
        for (int i = 0; i < w; i++) {
            sum[i] = 1 / sum[i];
        }
        for (int j = 0; j < keys; j++) {
            System.arraycopy(s, j * w, row, 0, w);
            for (int i = 0; i < w; i++) {
                row[i] *= sum[i];
            }
            System.arraycopy(row, 0, s, j * w, w);
        }
        if (causal) {
            for (int j = 1; j < keys; j++) {
                for (int h = 0; h < heads; h++) {
                    int o = j * w + h * t;
                    Arrays.fill(s, o, o + j, 0f);
                }
            }
        }
    }

    /**
     * In place in {@code dp} (the probabilities' gradient, laid out as {@code p}): dS = scale P (dP - colsum(dP P)).
     * Masked entries have P = 0 and so get 0. {@code column} and {@code scratch} width-long rows.
     */
    static void backward(float[] p, float[] dp, int t, int heads, float scale, float[] column, float[] scratch) {
        backward(p, dp, t, t, heads, scale, column, scratch);
    }

    /** The same over {@code keys} rows of queries t. */
    static void backward(
            float[] p, float[] dp, int keys, int t, int heads, float scale, float[] column, float[] scratch) {
        int w = heads * t;
        float[] dot = keptRow(0, w);
        Arrays.fill(dot, 0, w, 0f);
        float[] pr = column;
        float[] dr = scratch;
        for (int j = 0; j < keys; j++) {
            System.arraycopy(p, j * w, pr, 0, w);
            System.arraycopy(dp, j * w, dr, 0, w);
            for (int i = 0; i < w; i++) {
                dot[i] += dr[i] * pr[i];
            }
        }
        for (int j = 0; j < keys; j++) {
            System.arraycopy(p, j * w, pr, 0, w);
            System.arraycopy(dp, j * w, dr, 0, w);
            for (int i = 0; i < w; i++) {
                dr[i] = scale * pr[i] * (dr[i] - dot[i]);
            }
            System.arraycopy(dr, 0, dp, j * w, w);
        }
    }

    private static float[] keptRow(int slot, int w) {
        float[][] kept = ROWS.get();
        if (kept[slot].length < w) {
            kept[slot] = new float[w];
        }
        return kept[slot];
    }
}
