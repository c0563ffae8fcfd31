package org.traindeck.app.charts;

/**
 * The smoothing people trust from TensorBoard: an exponential moving average debiased for its start (so the first
 * points are not pulled toward zero). {@code weight} 0 is no smoothing, 0.99 is heavy.
 */
public final class Smoothing {

    private Smoothing() {
    }

    public static void debiasedEma(double[] values, int n, double weight, double[] out) {
        double last = 0;
        int count = 0;
        for (int i = 0; i < n; i++) {
            double v = values[i];
            if (!Double.isFinite(v)) {
                out[i] = v;
                continue;
            }
            last = last * weight + (1 - weight) * v;
            count++;
            double debias = weight == 0 ? 1 : 1 - Math.pow(weight, count);
            out[i] = last / debias;
        }
    }
}
