package org.traindeck.engine.model.kernels;

import java.util.Arrays;

/**
 * The block's elementwise work as plain loops over heap rows [rows, width]: layer norm, bias, residual,
 * column sums and the layout changes. Heap arrays rather than buffers on native memory, because C2 (Java 17)
 * vectorises loops over {@code float[]} but not a buffer's absolute get/put; the matrix products' operands are copied
 * to and from native memory in bulk. Row statistics accumulate in double, everything else in float.
 */
public final class TransformerBlockMath {

    /** Floats in a chunk of rows (rounded down to whole rows of the width, at least one row). */
    public static final int CHUNK = 2048;

    private TransformerBlockMath() {}

    /** [mb, c, t] (c order) to rows [mb t, c]. */
    public static void toRows(float[] in, float[] rows, int mb, int c, int t) {
        for (int b = 0; b < mb; b++) {
            int base = b * c * t;
            for (int f = 0; f < c; f++) {
                int src = base + f * t;
                int dst = base + f;
                for (int s = 0; s < t; s++) {
                    rows[dst + s * c] = in[src + s];
                }
            }
        }
    }

    /** Rows [mb t, c] to [mb, c, t] (c order). */
    public static void fromRows(float[] rows, float[] out, int mb, int c, int t) {
        for (int b = 0; b < mb; b++) {
            int base = b * c * t;
            for (int f = 0; f < c; f++) {
                int dst = base + f * t;
                int src = base + f;
                for (int s = 0; s < t; s++) {
                    out[dst + s] = rows[src + s * c];
                }
            }
        }
    }

    /** Sum of a[from, from + n) in double, four partial sums (a single chain waits on each add's latency). */
    public static double sum(float[] a, int from, int n) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int j = 0;
        for (; j + 3 < n; j += 4) {
            s0 += a[from + j];
            s1 += a[from + j + 1];
            s2 += a[from + j + 2];
            s3 += a[from + j + 3];
        }
        for (; j < n; j++) {
            s0 += a[from + j];
        }
        return (s0 + s1) + (s2 + s3);
    }

    /** Sum of a[aAt + j] b[bAt + j] for j in [0, n), in double with four partial sums. */
    public static double dot(float[] a, int aAt, float[] b, int bAt, int n) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int j = 0;
        for (; j + 3 < n; j += 4) {
            s0 += a[aAt + j] * b[bAt + j];
            s1 += a[aAt + j + 1] * b[bAt + j + 1];
            s2 += a[aAt + j + 2] * b[bAt + j + 2];
            s3 += a[aAt + j + 3] * b[bAt + j + 3];
        }
        for (; j < n; j++) {
            s0 += a[aAt + j] * b[bAt + j];
        }
        return (s0 + s1) + (s2 + s3);
    }

    /**
     * {@code v} (one row of width c) repeated over a chunk of whole rows, {@link #CHUNK} floats or one row. C2 (Java 17)
     * vectorises a loop only where every array is read at the same index (a[i], b[i]; not a[at + i], b[i]: the arrays
     * might be one), so a row's vector is tiled and the rows are worked on a chunk at a time in chunk-sized arrays.
     */
    public static float[] tile(float[] v, int c) {
        int rows = Math.max(1, CHUNK / c);
        float[] t = new float[rows * c];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(v, 0, t, r * c, c);
        }
        return t;
    }

    /** y = (x - mean) / sqrt(var + eps) * gain + bias per row; keeps the normalised rows and 1/std for the backward pass. */
    public static void layerNorm(
            float[] x,
            float[] xhat,
            float[] rstd,
            float[] y,
            float[] gain,
            float[] bias,
            int rows,
            int c,
            double eps,
            float[] local) {
        for (int r = 0; r < rows; r++) {
            int o = r * c;
            float mean = (float) (sum(x, o, c) / c);
            for (int j = o; j < o + c; j++) {
                xhat[j] = x[j] - mean;
            }
            float inv = (float) (1.0 / Math.sqrt(dot(xhat, o, xhat, o, c) / c + eps));
            rstd[r] = inv;
            for (int j = o; j < o + c; j++) {
                xhat[j] *= inv;
            }
        }
        float[] g = ChunkTiles.tiled(0, gain, c);
        float[] b = ChunkTiles.tiled(1, bias, c);
        int step = ChunkTiles.length(c);
        int total = rows * c;
        for (int s = 0; s < total; s += step) {
            int len = Math.min(step, total - s);
            System.arraycopy(xhat, s, local, 0, len);
            for (int i = 0; i < len; i++) {
                local[i] = local[i] * g[i] + b[i];
            }
            System.arraycopy(local, 0, y, s, len);
        }
    }

    /**
     * The layer norm's backward pass: gain and bias gradients (written, not added) and dx = rstd (dxhat - mean(dxhat)
     * - xhat mean(dxhat xhat)) with dxhat = dy gain, plus the residual's gradient {@code dr} (which may be dx
     * itself), into {@code dx}. {@code scratch} is as long as dy, {@code local} three chunk-sized arrays.
     */
    public static void layerNormBackward(
            float[] dy,
            float[] xhat,
            float[] rstd,
            float[] gain,
            float[] dr,
            float[] dx,
            float[] dGain,
            float[] dBias,
            float[] scratch,
            int rows,
            int c,
            float[][] local) {
        float[] g = ChunkTiles.tiled(0, gain, c);
        float[] accGain = ChunkTiles.zeros(1, c);
        float[] accBias = ChunkTiles.zeros(2, c);
        float[] d = local[0];
        float[] n = local[1];
        int step = ChunkTiles.length(c);
        int total = rows * c;
        for (int s = 0; s < total; s += step) {
            int len = Math.min(step, total - s);
            System.arraycopy(dy, s, d, 0, len);
            System.arraycopy(xhat, s, n, 0, len);
            for (int i = 0; i < len; i++) {
                accGain[i] += d[i] * n[i];
                accBias[i] += d[i];
                d[i] *= g[i];
            }
            System.arraycopy(d, 0, scratch, s, len);
        }
        fold(accGain, c, dGain);
        fold(accBias, c, dBias);
        for (int r = 0; r < rows; r++) {
            int o = r * c;
            float meanD = (float) (sum(scratch, o, c) / c);
            float meanDX = (float) (dot(scratch, o, xhat, o, c) / c);
            float inv = rstd[r];
            for (int j = o; j < o + c; j++) {
                dx[j] = dr[j] + inv * (scratch[j] - meanD - xhat[j] * meanDX);
            }
        }
    }

    /** out = residual + mask (branch + bias) per element; mask null: no dropout. {@code local}: three chunk-sized arrays. */
    public static void residual(
            float[] residual,
            float[] branch,
            float[] bias,
            float[] mask,
            int maskAt,
            float[] out,
            int n,
            int c,
            float[][] local) {
        float[] b = ChunkTiles.tiled(0, bias, c);
        float[] res = local[0];
        float[] br = local[1];
        float[] m = local[2];
        int step = ChunkTiles.length(c);
        int total = n * c;
        for (int s = 0; s < total; s += step) {
            int len = Math.min(step, total - s);
            System.arraycopy(residual, s, res, 0, len);
            System.arraycopy(branch, s, br, 0, len);
            if (mask == null) {
                for (int i = 0; i < len; i++) {
                    res[i] += br[i] + b[i];
                }
            } else {
                System.arraycopy(mask, maskAt + s, m, 0, len);
                for (int i = 0; i < len; i++) {
                    res[i] += (br[i] + b[i]) * m[i];
                }
            }
            System.arraycopy(res, 0, out, s, len);
        }
    }

    /** out = in * mask (from {@code maskAt}), or a copy without a mask. */
    public static void masked(float[] in, float[] mask, int maskAt, float[] out, int n) {
        if (mask == null) {
            System.arraycopy(in, 0, out, 0, n);
            return;
        }
        if (maskAt != 0) {
            // the second mask moved to index 0 of out first, so that the loop reads every array at the same index
            System.arraycopy(mask, maskAt, out, 0, n);
            for (int i = 0; i < n; i++) {
                out[i] *= in[i];
            }
            return;
        }
        for (int i = 0; i < n; i++) {
            out[i] = in[i] * mask[i];
        }
    }

    /** Column sums of rows [n, c] written to {@code out}; {@code local} a chunk-sized array. */
    public static void columnSums(float[] rows, int n, int c, float[] out, float[] local) {
        float[] acc = ChunkTiles.zeros(0, c);
        int step = ChunkTiles.length(c);
        int total = n * c;
        for (int s = 0; s < total; s += step) {
            int len = Math.min(step, total - s);
            System.arraycopy(rows, s, local, 0, len);
            accumulate(acc, local, len);
        }
        fold(acc, c, out);
    }

    /** acc[i] += rows[i] for i in [0, len): column sums a chunk at a time into a {@link #tile}-shaped accumulator. */
    public static void accumulate(float[] acc, float[] rows, int len) {
        for (int i = 0; i < len; i++) {
            acc[i] += rows[i];
        }
    }

    /** Folds a tile-shaped accumulator (its first {@link ChunkTiles#length} floats) into column sums, in {@code out}. */
    public static void fold(float[] acc, int c, float[] out) {
        Arrays.fill(out, 0, c, 0f);
        int length = ChunkTiles.length(c);
        for (int o = 0; o < length; o += c) {
            for (int j = 0; j < c; j++) {
                out[j] += acc[o + j];
            }
        }
    }

    /** a[i] *= factor. */
    public static void scale(float[] a, int n, float factor) {
        for (int i = 0; i < n; i++) {
            a[i] *= factor;
        }
    }
}
