package org.traindeck.engine.data;

import java.util.Arrays;
import org.traindeck.engine.config.SourceConfig;

/**
 * Per-feature scaling fitted on training data and applied unchanged to validation data. Constant features (range
 * or deviation 0) are centred, never divided by zero.
 */
public final class Normalizer {

    private final SourceConfig.Normalize kind;
    private final float[] shift;
    private final float[] scale;

    private Normalizer(SourceConfig.Normalize kind, float[] shift, float[] scale) {
        this.kind = kind;
        this.shift = shift;
        this.scale = scale;
    }

    public static Normalizer fit(SourceConfig.Normalize kind, Dataset train) {
        int d = train.featureCount();
        float[] shift = new float[d];
        float[] scale = new float[d];
        Arrays.fill(scale, 1f);
        if (kind == SourceConfig.Normalize.NONE) {
            return new Normalizer(kind, shift, scale);
        }
        float[] f = train.rawFeatures();
        int n = train.size();
        for (int j = 0; j < d; j++) {
            if (kind == SourceConfig.Normalize.MINMAX) {
                float min = Float.POSITIVE_INFINITY;
                float max = Float.NEGATIVE_INFINITY;
                for (int i = 0; i < n; i++) {
                    min = Math.min(min, f[i * d + j]);
                    max = Math.max(max, f[i * d + j]);
                }
                shift[j] = min;
                scale[j] = max > min ? 1f / (max - min) : 1f;
            } else {
                double sum = 0;
                double sq = 0;
                for (int i = 0; i < n; i++) {
                    sum += f[i * d + j];
                }
                double mean = sum / n;
                for (int i = 0; i < n; i++) {
                    double dv = f[i * d + j] - mean;
                    sq += dv * dv;
                }
                double std = Math.sqrt(sq / n);
                shift[j] = (float) mean;
                scale[j] = std > 1e-12 ? (float) (1 / std) : 1f;
            }
        }
        return new Normalizer(kind, shift, scale);
    }

    /** Normalises {@code count} samples of {@link #featureCount()} values in place, from {@code offset}. */
    public void applyInPlace(float[] values, int offset, int count) {
        int d = shift.length;
        for (int i = 0; i < count * d; i++) {
            int j = i % d;
            values[offset + i] = (values[offset + i] - shift[j]) * scale[j];
        }
    }

    public int featureCount() {
        return shift.length;
    }

    public SourceConfig.Normalize kind() {
        return kind;
    }

    public Dataset apply(Dataset data) {
        if (kind == SourceConfig.Normalize.NONE) {
            return data;
        }
        int d = data.featureCount();
        float[] in = data.rawFeatures();
        float[] out = new float[in.length];
        for (int i = 0; i < in.length; i++) {
            int j = i % d;
            out[i] = (in[i] - shift[j]) * scale[j];
        }
        return data.withFeatures(out);
    }
}
