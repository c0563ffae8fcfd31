package org.traindeck.engine.api.library;

/**
 * One tag's points as the files hold them after restarts are applied, in the order written: steps, wall times
 * (seconds since the epoch) and values. Arrays rather than objects, so that two million points take about 40 MB.
 */
public record TagSeries(long[] steps, double[] wallTimes, double[] values) {

    public int size() {
        return steps.length;
    }

    /** The last value written; NaN when there is none. */
    public double last() {
        return values.length == 0 ? Double.NaN : values[values.length - 1];
    }

    /** The lowest finite value; NaN when there is none. */
    public double lowest() {
        double low = Double.NaN;
        for (double v : values) {
            low = Double.isFinite(v) && !(v >= low) ? v : low;
        }
        return low;
    }

    /** The highest finite value; NaN when there is none. */
    public double highest() {
        double high = Double.NaN;
        for (double v : values) {
            high = Double.isFinite(v) && !(v <= high) ? v : high;
        }
        return high;
    }

    /** The last step written; 0 when there is none. */
    public long lastStep() {
        return steps.length == 0 ? 0 : steps[steps.length - 1];
    }
}
