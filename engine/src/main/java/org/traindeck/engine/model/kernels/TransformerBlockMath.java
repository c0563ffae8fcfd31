package org.traindeck.engine.model.kernels;

import java.nio.FloatBuffer;

/**
 * The block's elementwise work as plain loops over rows [rows, width] in native memory: layer norm, softmax, GELU,
 * bias, residual, column sums and the layout changes. Everything accumulates in float except the row statistics.
 */
final class TransformerBlockMath {

    /** DL4J's Activation.GELU (ND4J's non-precise gelu op): x sigmoid(1.702 x). */
    static final float GELU_SCALE = 1.702f;

    private static final float LOG2E = 1.4426950408889634f;
    private static final float LN2_HIGH = 0.693145751953125f;
    private static final float LN2_LOW = 1.428606765330187e-06f;

    private TransformerBlockMath() {
    }

    /**
     * e^x in float to about 2e-7 relative: x = n ln2 + r with |r| <= ln2/2, e^r by its Taylor polynomial of degree 6,
     * times 2^n built in the exponent bits. Math.exp (double, 10-25 ns a call here) was most of the softmax's and the
     * GELU's time.
     */
    static float exp(float x) {
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

    /** [mb, c, t] (c order, from {@code inOffset}) to rows [mb t, c]. */
    static void toRows(FloatBuffer in, int inOffset, FloatBuffer rows, int mb, int c, int t) {
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int src = inOffset + (b * c + f) * t;
                int dst = b * t * c + f;
                for (int s = 0; s < t; s++) {
                    rows.put(dst + s * c, in.get(src + s));
                }
            }
        }
    }

    /** Rows [mb t, c] to [mb, c, t] (c order, from {@code outOffset}). */
    static void fromRows(FloatBuffer rows, FloatBuffer out, int outOffset, int mb, int c, int t) {
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int dst = outOffset + (b * c + f) * t;
                int src = b * t * c + f;
                for (int s = 0; s < t; s++) {
                    out.put(dst + s, rows.get(src + s * c));
                }
            }
        }
    }

    /** y = (x - mean) / sqrt(var + eps) * gain + bias per row; keeps the normalised rows and 1/std for the backward pass. */
    static void layerNorm(FloatBuffer x, FloatBuffer xhat, FloatBuffer rstd, FloatBuffer y, FloatBuffer gain, FloatBuffer bias,
                          int rows, int c, double eps) {
        for (int r = 0; r < rows; r++) {
            int o = r * c;
            double sum = 0;
            for (int j = 0; j < c; j++) {
                sum += x.get(o + j);
            }
            float mean = (float) (sum / c);
            double sq = 0;
            for (int j = 0; j < c; j++) {
                float d = x.get(o + j) - mean;
                sq += d * d;
            }
            float inv = (float) (1.0 / Math.sqrt(sq / c + eps));
            rstd.put(r, inv);
            for (int j = 0; j < c; j++) {
                float n = (x.get(o + j) - mean) * inv;
                xhat.put(o + j, n);
                y.put(o + j, n * gain.get(j) + bias.get(j));
            }
        }
    }

    /**
     * The layer norm's backward pass: gain and bias gradients (written, not added) and dx = rstd (dxhat - mean(dxhat)
     * - xhat mean(dxhat xhat)) with dxhat = dy gain, added to {@code dx} which holds the residual's gradient.
     */
    static void layerNormBackward(FloatBuffer dy, FloatBuffer xhat, FloatBuffer rstd, FloatBuffer gain, FloatBuffer dx,
                                  FloatBuffer dGain, int dGainAt, FloatBuffer dBias, int dBiasAt, int rows, int c) {
        float[] gGain = new float[c];
        float[] gBias = new float[c];
        for (int r = 0; r < rows; r++) {
            int o = r * c;
            double sumD = 0;
            double sumDX = 0;
            for (int j = 0; j < c; j++) {
                float g = dy.get(o + j);
                float n = xhat.get(o + j);
                gGain[j] += g * n;
                gBias[j] += g;
                float d = g * gain.get(j);
                sumD += d;
                sumDX += d * n;
            }
            float meanD = (float) (sumD / c);
            float meanDX = (float) (sumDX / c);
            float inv = rstd.get(r);
            for (int j = 0; j < c; j++) {
                float d = dy.get(o + j) * gain.get(j);
                dx.put(o + j, dx.get(o + j) + inv * (d - meanD - xhat.get(o + j) * meanDX));
            }
        }
        for (int j = 0; j < c; j++) {
            dGain.put(dGainAt + j, gGain[j]);
            dBias.put(dBiasAt + j, gBias[j]);
        }
    }

    /** Adds the bias (from {@code biasAt}) to every row. */
    static void addBias(FloatBuffer rows, FloatBuffer bias, int biasAt, int n, int c) {
        for (int r = 0; r < n; r++) {
            int o = r * c;
            for (int j = 0; j < c; j++) {
                rows.put(o + j, rows.get(o + j) + bias.get(biasAt + j));
            }
        }
    }

    /** out = residual + mask (branch + bias) per element; mask null: no dropout. */
    static void residual(FloatBuffer residual, FloatBuffer branch, FloatBuffer bias, int biasAt, FloatBuffer mask, FloatBuffer out,
                         int n, int c) {
        for (int r = 0; r < n; r++) {
            int o = r * c;
            for (int j = 0; j < c; j++) {
                float v = branch.get(o + j) + bias.get(biasAt + j);
                if (mask != null) {
                    v *= mask.get(o + j);
                }
                out.put(o + j, residual.get(o + j) + v);
            }
        }
    }

    /** out = in * mask, or a copy without a mask. */
    static void masked(FloatBuffer in, FloatBuffer mask, FloatBuffer out, int n) {
        for (int i = 0; i < n; i++) {
            out.put(i, mask == null ? in.get(i) : in.get(i) * mask.get(i));
        }
    }

    /** Column sums of rows [n, c] written to {@code out} from {@code at}. */
    static void columnSums(FloatBuffer rows, int n, int c, FloatBuffer out, int at) {
        float[] s = new float[c];
        for (int r = 0; r < n; r++) {
            int o = r * c;
            for (int j = 0; j < c; j++) {
                s[j] += rows.get(o + j);
            }
        }
        for (int j = 0; j < c; j++) {
            out.put(at + j, s[j]);
        }
    }

    /** u += bias; s = sigmoid(1.702 u); z = u s. */
    static void biasGelu(FloatBuffer u, FloatBuffer bias, int biasAt, FloatBuffer s, FloatBuffer z, int n, int f) {
        for (int r = 0; r < n; r++) {
            int o = r * f;
            for (int j = 0; j < f; j++) {
                float v = u.get(o + j) + bias.get(biasAt + j);
                float sg = 1 / (1 + exp(-GELU_SCALE * v));
                u.put(o + j, v);
                s.put(o + j, sg);
                z.put(o + j, v * sg);
            }
        }
    }

    /** dz *= gelu'(u) = s (1 + 1.702 u (1 - s)). */
    static void geluBackward(FloatBuffer dz, FloatBuffer u, FloatBuffer s, int count) {
        for (int i = 0; i < count; i++) {
            float sg = s.get(i);
            dz.put(i, dz.get(i) * sg * (1 + GELU_SCALE * u.get(i) * (1 - sg)));
        }
    }

    /** Row softmax of a [t, t] score block from {@code at}; causal: row i keeps columns 0..i, the rest become 0. */
    static void softmax(FloatBuffer p, int at, int t, boolean causal) {
        for (int i = 0; i < t; i++) {
            int o = at + i * t;
            int end = causal ? i + 1 : t;
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < end; j++) {
                max = Math.max(max, p.get(o + j));
            }
            float sum = 0;
            for (int j = 0; j < end; j++) {
                float e = exp(p.get(o + j) - max);
                p.put(o + j, e);
                sum += e;
            }
            float inv = 1 / sum;
            for (int j = 0; j < end; j++) {
                p.put(o + j, p.get(o + j) * inv);
            }
            for (int j = end; j < t; j++) {
                p.put(o + j, 0);
            }
        }
    }

    /** In place in {@code dp}: dS = scale P (dP - rowsum(dP P)), for a [t, t] block; P from {@code pAt}. */
    static void softmaxBackward(FloatBuffer p, int pAt, FloatBuffer dp, int t, float scale, boolean causal) {
        for (int i = 0; i < t; i++) {
            int o = i * t;
            int end = causal ? i + 1 : t;
            float dot = 0;
            for (int j = 0; j < end; j++) {
                dot += dp.get(o + j) * p.get(pAt + o + j);
            }
            for (int j = 0; j < end; j++) {
                dp.put(o + j, scale * p.get(pAt + o + j) * (dp.get(o + j) - dot));
            }
            for (int j = end; j < t; j++) {
                dp.put(o + j, 0);
            }
        }
    }
}
