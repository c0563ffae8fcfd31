package org.traindeck.app.layers;

import org.traindeck.engine.events.HistogramEvent;

/**
 * A histogram's buckets spread over even bins from its minimum to its maximum, as TensorBoard redraws them: each
 * bucket's count is shared among the bins it overlaps, in proportion. TensorBoard's own bucket limits grow
 * exponentially and end at ±1.8e308; evenly spaced bins draw either kind the same way.
 */
public final class HistogramBins {

    private HistogramBins() {}

    /** Counts per bin, {@code bins} of them over [min, max] of {@code h}; all in the first bin when min = max. */
    public static double[] spread(HistogramEvent h, int bins) {
        double[] out = new double[bins];
        double[] limits = h.bucketLimits();
        double[] counts = h.bucketCounts();
        double lo = h.min();
        double hi = h.max();
        if (!(hi > lo)) {
            double total = 0;
            for (double c : counts) {
                total += c;
            }
            out[0] = total;
            return out;
        }
        double width = (hi - lo) / bins;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] <= 0) {
                continue;
            }
            // bucket i holds (limits[i-1], limits[i]]: clipped to the values' range, since the outer limits are huge
            double left = Math.max(lo, i == 0 ? lo : limits[i - 1]);
            double right = Math.min(hi, limits[i]);
            if (!(right > left)) {
                int at = bin(Math.max(lo, Math.min(hi, right)), lo, width, bins);
                out[at] += counts[i];
                continue;
            }
            int first = bin(left, lo, width, bins);
            int last = bin(right, lo, width, bins);
            for (int b = first; b <= last; b++) {
                double overlap = Math.min(right, lo + (b + 1) * width) - Math.max(left, lo + b * width);
                if (overlap > 0) {
                    out[b] += counts[i] * overlap / (right - left);
                }
            }
        }
        return out;
    }

    private static int bin(double x, double lo, double width, int bins) {
        return (int) Math.max(0, Math.min(bins - 1, Math.floor((x - lo) / width)));
    }

    /** The mean of the values, from the histogram's sum and count (NaN for none). */
    public static double mean(HistogramEvent h) {
        return h.count() == 0 ? Double.NaN : h.sum() / h.count();
    }

    /** The standard deviation of the values, from the sum of squares. */
    public static double std(HistogramEvent h) {
        if (h.count() == 0) {
            return Double.NaN;
        }
        double m = h.sum() / h.count();
        return Math.sqrt(Math.max(0, h.sumSquares() / h.count() - m * m));
    }
}
