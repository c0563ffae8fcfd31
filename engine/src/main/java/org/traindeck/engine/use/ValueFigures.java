package org.traindeck.engine.use;

import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.batch.ValueErrors;

/**
 * Real values over batches: MSE, MAE and R² (per target, averaged) for regression; MSE, MAE and PSNR for
 * reconstruction, the peak being the data's range as validation takes it.
 */
final class ValueFigures {

    private final boolean reconstruction;
    private final int steps;
    private final int targets;
    private final double[] sum;
    private final double[] sumSquares;
    private final double[] residualSquares;
    private final long[] rows;
    private final ValueErrors errors = new ValueErrors();

    /** @param targets values per sample, each its own column for R² */
    ValueFigures(boolean reconstruction, int targets) {
        this(reconstruction, targets, 1);
    }

    /**
     * @param targets values per step, each its own column for R²
     * @param steps   steps per sample (1: values per sample), laid out [targets, steps], pooled into their column
     */
    ValueFigures(boolean reconstruction, int targets, int steps) {
        this.steps = Math.max(1, steps);
        this.reconstruction = reconstruction;
        this.targets = Math.max(1, targets);
        this.sum = new double[this.targets];
        this.sumSquares = new double[this.targets];
        this.residualSquares = new double[this.targets];
        this.rows = new long[this.targets];
    }

    void add(float[] out, float[] labels, int n) {
        add(out, labels, null, n);
    }

    /** @param mask a weight of 1 (counts) or 0 (padding) per value, or null: all count */
    void add(float[] out, float[] labels, float[] mask, int n) {
        for (int i = 0; i < labels.length; i++) {
            if (mask != null && mask[i] == 0f) {
                continue;
            }
            double err = out[i] - labels[i];
            errors.add(out[i], labels[i]);
            int column = (i / steps) % targets;
            sum[column] += labels[i];
            sumSquares[column] += (double) labels[i] * labels[i];
            residualSquares[column] += err * err;
            rows[column]++;
        }
    }

    Map<String, Double> figures() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(MetricNames.VAL_LOSS, errors.mse());
        m.put(MetricNames.VAL_MSE, errors.mse());
        m.put(MetricNames.VAL_MAE, errors.mae());
        if (reconstruction) {
            m.put(MetricNames.VAL_PSNR, errors.psnr());
        } else {
            double r2 = 0;
            for (int j = 0; j < targets; j++) {
                double mean = sum[j] / Math.max(1, rows[j]);
                double total = sumSquares[j] - rows[j] * mean * mean;
                // a constant target: R² is 1 for a perfect fit and undefined otherwise (sklearn gives 0 there)
                r2 += total <= 0 ? (residualSquares[j] == 0 ? 1 : 0) : 1 - residualSquares[j] / total;
            }
            m.put(MetricNames.VAL_R2, r2 / targets);
        }
        return m;
    }
}
