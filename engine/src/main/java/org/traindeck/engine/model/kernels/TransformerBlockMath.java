package org.traindeck.engine.model.kernels;

import java.util.Arrays;

/**
 * The block's elementwise work as plain loops over heap rows [rows, width]: layer norm, bias, residual,
 * column sums and the layout changes. Heap arrays rather than buffers on native memory, because C2 (Java 17)
 * vectorises loops over {@code float[]} but not a buffer's absolute get/put; the matrix products' operands are copied
 * to and from native memory in bulk. Row statistics accumulate in double, everything else in float.
 */
public final class TransformerBlockMath {

    private static final float LOG2E = 1.4426950408889634f;
    private static final float LN2_HIGH = 0.693145751953125f;
    private static final float LN2_LOW = 1.428606765330187e-06f;
    /** 1.5 * 2^23: adding it rounds a float below 2^22 to an integer, kept in the low mantissa bits. */
    private static final float ROUNDER = 12582912f;

    private static final int ROUNDER_BITS = 0x4B400000;
    /** Below this exp's 2^n would leave the normal range; exp of anything lower is this one's value, 2.7e-38. */
    public static final float EXP_FLOOR = -86.5f;

    private static final float EXP_CEILING = 88f;
    /** Floats in a chunk of rows (rounded down to whole rows of the width, at least one row). */
    public static final int CHUNK = 2048;

    private TransformerBlockMath() {}

    /**
     * e^x in float to about 2e-7 relative: x = n ln2 + r with |r| <= ln2/2, e^r by its Taylor polynomial of degree 6,
     * times 2^n built in the exponent bits. Math.exp (double, 10-25 ns a call here) was most of the softmax's time.
     */
    public static float exp(float x) {
        if (x < -87.3f) {
            return 0;
        }
        if (x > 88f) {
            return Float.POSITIVE_INFINITY;
        }
        float n = (float) Math.floor(x * LOG2E + 0.5f);
        float r = x - n * LN2_HIGH - n * LN2_LOW;
        float p = 1 + r * (1 + r * (0.5f + r * (1 / 6f + r * (1 / 24f + r * (1 / 120f + r * (1 / 720f))))));
        return p * Float.intBitsToFloat(((int) n + 127) << 23);
    }

    /**
     * a[i] = e^a[i] for i in [from, to), as {@link #exp} (arguments clamped to [-86.5, 88]: below, 2.7e-38, not 0), in
     * two loops that C2 vectorises: the polynomial in float (n rounded by adding 1.5 2^23, kept in {@code scratch}),
     * then 2^n added to the exponent bits. One loop mixing float arithmetic with the bit moves stays scalar (4 ns an
     * element here, against under 1 ns).
     */
    public static void expInPlace(float[] a, float[] scratch, int from, int to) {
        for (int i = from; i < to; i++) {
            float x = Math.max(EXP_FLOOR, Math.min(EXP_CEILING, a[i]));
            float t = x * LOG2E + ROUNDER;
            float n = t - ROUNDER;
            float r = x - n * LN2_HIGH - n * LN2_LOW;
            a[i] = 1 + r * (1 + r * (0.5f + r * (1 / 6f + r * (1 / 24f + r * (1 / 120f + r * (1 / 720f))))));
            scratch[i] = t;
        }
        for (int i = from; i < to; i++) {
            a[i] = Float.intBitsToFloat(
                    Float.floatToRawIntBits(a[i]) + ((Float.floatToRawIntBits(scratch[i]) - ROUNDER_BITS) << 23));
        }
    }

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
