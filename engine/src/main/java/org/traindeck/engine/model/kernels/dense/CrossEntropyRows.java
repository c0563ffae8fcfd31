package org.traindeck.engine.model.kernels.dense;

import java.util.Arrays;
import org.traindeck.engine.model.kernels.FloatExp;

/** Softmax rows and their cross-entropy, as the classifier and sequence heads compute and score them. */
final class CrossEntropyRows {

    private CrossEntropyRows() {}

    /** In place: each of the {@code rows} rows of {@code logits} [rows, classes] plus {@code bias} becomes its softmax. */
    static void softmax(float[] logits, float[] bias, int rows, int classes) {
        float[] p = logits;
        for (int r = 0; r < rows; r++) {
            int o = r * classes;
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < classes; j++) {
                float z = p[o + j] + bias[j];
                p[o + j] = z;
                max = Math.max(max, z);
            }
            float sum = 0;
            for (int j = 0; j < classes; j++) {
                float e = FloatExp.exp(p[o + j] - max);
                p[o + j] = e;
                sum += e;
            }
            float inv = 1 / sum;
            for (int j = 0; j < classes; j++) {
                p[o + j] *= inv;
            }
        }
    }

    /** In place: each row's p − y times the row's mask, the logits' gradient of the masked cross-entropy. */
    static void gradient(float[] probabilities, float[] targets, float[] mask, int rows, int classes) {
        float[] d = probabilities;
        for (int r = 0; r < rows; r++) {
            int o = r * classes;
            float m = mask[r];
            for (int j = 0; j < classes; j++) {
                d[o + j] = (d[o + j] - targets[o + j]) * m;
            }
        }
    }

    /** The sum of the rows of {@code d} [rows, classes] into {@code sums} (the bias's gradient). */
    static void columnSums(float[] d, float[] sums, int rows, int classes) {
        Arrays.fill(sums, 0, classes, 0f);
        for (int r = 0; r < rows; r++) {
            int o = r * classes;
            for (int j = 0; j < classes; j++) {
                sums[j] += d[o + j];
            }
        }
    }

    /**
     * Σ over rows of −mask · Σ_k y log p, p clipped to [clip, 1 − clip] as DL4J's cross-entropy clips it (no clipping when
     * clip is 0); a row whose mask is 0 adds nothing.
     */
    static double sum(float[] probabilities, float[] targets, float[] mask, int rows, int classes, double clip) {
        double sum = 0;
        for (int r = 0; r < rows; r++) {
            float m = mask[r];
            if (m == 0) {
                continue;
            }
            int o = r * classes;
            double row = 0;
            for (int j = 0; j < classes; j++) {
                float y = targets[o + j];
                if (y != 0) {
                    double p = probabilities[o + j];
                    if (clip > 0) {
                        p = Math.min(Math.max(p, clip), 1 - clip);
                    }
                    row += y * Math.log(p);
                }
            }
            sum -= row * m;
        }
        return sum;
    }
}
