package org.traindeck.app.charts;

/**
 * The smoothing people trust from TensorBoard: an exponential moving average debiased for its start (so the first
 * points are not pulled toward zero). {@code weight} 0 is no smoothing, 0.99 is heavy. Incremental: a chart extends
 * its smoothed line point by point as data arrives.
 */
public final class Smoothing {

    private final double weight;
    private double last;
    private long count;

    public Smoothing(double weight) {
        this.weight = weight;
    }

    public double weight() {
        return weight;
    }

    /** The smoothed value after {@code value}; a non-finite value passes through and does not disturb the average. */
    public double next(double value) {
        if (!Double.isFinite(value)) {
            return value;
        }
        last = last * weight + (1 - weight) * value;
        count++;
        return weight == 0 ? last : last / (1 - Math.pow(weight, count));
    }
}
