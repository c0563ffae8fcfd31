package org.traindeck.engine.model.kernels.embedding;

import java.util.Arrays;
import org.traindeck.engine.model.kernels.HostFloats;

/**
 * DiT's final-layer norm: rows [n, F] (row r belongs to example r / steps) layer-normalised without gain or bias
 * (eps 1e-6), then h = xhat (1 + scale) + shift with [shift, scale] = SiLU(c) Wm + bm per example. Keeps what its
 * backward pass needs. The products are [mb, C] by [C, 2F]: small, so plain loops on the heap.
 */
final class FinalLayerNorm {

    static final float EPS = 1e-6f;

    private final int width;
    private final int conditionWidth;
    private int mb;
    private int steps;
    private float[] xhat = new float[0];
    private float[] rstd = new float[0];
    private float[] silu = new float[0];
    private float[] siluSlope = new float[0];
    private float[] modulation = new float[0];

    FinalLayerNorm(int width, int conditionWidth) {
        this.width = width;
        this.conditionWidth = conditionWidth;
    }

    /** h of the rows [mb·steps, F] and the conditions [mb, C], into {@code out}. */
    void forward(float[] rows, float[] condition, int mb, int steps, float[] wm, float[] bm, float[] out) {
        this.mb = mb;
        this.steps = steps;
        modulate(condition, wm, bm);
        int n = mb * steps;
        xhat = HostFloats.atLeast(xhat, (long) n * width);
        rstd = HostFloats.atLeast(rstd, n);
        for (int r = 0; r < n; r++) {
            int o = r * width;
            double sum = 0;
            for (int j = 0; j < width; j++) {
                sum += rows[o + j];
            }
            float mean = (float) (sum / width);
            double squares = 0;
            for (int j = 0; j < width; j++) {
                float d = rows[o + j] - mean;
                squares += d * d;
            }
            float s = (float) (1 / Math.sqrt(squares / width + EPS));
            rstd[r] = s;
            int m = (r / steps) * 2 * width;
            for (int j = 0; j < width; j++) {
                float x = (rows[o + j] - mean) * s;
                xhat[o + j] = x;
                out[o + j] = x * (1 + modulation[m + width + j]) + modulation[m + j];
            }
        }
    }

    private void modulate(float[] condition, float[] wm, float[] bm) {
        int c = conditionWidth;
        int two = 2 * width;
        silu = HostFloats.atLeast(silu, (long) mb * c);
        siluSlope = HostFloats.atLeast(siluSlope, (long) mb * c);
        for (int i = 0; i < mb * c; i++) {
            float x = condition[i];
            float s = (float) (1 / (1 + Math.exp(-x)));
            silu[i] = x * s;
            siluSlope[i] = s * (1 + x * (1 - s));
        }
        modulation = HostFloats.atLeast(modulation, (long) mb * two);
        for (int e = 0; e < mb; e++) {
            int m = e * two;
            System.arraycopy(bm, 0, modulation, m, two);
            for (int i = 0; i < c; i++) {
                float a = silu[e * c + i];
                int at = i * two;
                for (int k = 0; k < two; k++) {
                    modulation[m + k] += a * wm[at + k];
                }
            }
        }
    }

    /**
     * From h's gradient {@code dh} [n, F]: the rows' gradient (into {@code dRows}), Wm's and bm's (into {@code dwm},
     * {@code dbm}, overwritten) and the conditions' [mb, C] (returned).
     */
    float[] backward(float[] dh, float[] wm, float[] dRows, float[] dwm, float[] dbm) {
        int two = 2 * width;
        float[] dModulation = new float[mb * two];
        for (int r = 0; r < mb * steps; r++) {
            int o = r * width;
            int m = (r / steps) * two;
            double meanG = 0;
            double meanGx = 0;
            for (int j = 0; j < width; j++) {
                float d = dh[o + j];
                float x = xhat[o + j];
                dModulation[m + j] += d;
                dModulation[m + width + j] += d * x;
                float g = d * (1 + modulation[m + width + j]);
                dRows[o + j] = g;
                meanG += g;
                meanGx += g * x;
            }
            float a = (float) (meanG / width);
            float b = (float) (meanGx / width);
            for (int j = 0; j < width; j++) {
                dRows[o + j] = rstd[r] * (dRows[o + j] - a - xhat[o + j] * b);
            }
        }
        return conditionBackward(dModulation, wm, dwm, dbm);
    }

    private float[] conditionBackward(float[] dModulation, float[] wm, float[] dwm, float[] dbm) {
        int c = conditionWidth;
        int two = 2 * width;
        Arrays.fill(dwm, 0, c * two, 0f);
        Arrays.fill(dbm, 0, two, 0f);
        float[] dCondition = new float[mb * c];
        for (int e = 0; e < mb; e++) {
            int m = e * two;
            for (int k = 0; k < two; k++) {
                dbm[k] += dModulation[m + k];
            }
            for (int i = 0; i < c; i++) {
                float a = silu[e * c + i];
                int at = i * two;
                double dot = 0;
                for (int k = 0; k < two; k++) {
                    dwm[at + k] += a * dModulation[m + k];
                    dot += dModulation[m + k] * wm[at + k];
                }
                dCondition[e * c + i] = (float) dot * siluSlope[e * c + i];
            }
        }
        return dCondition;
    }
}
