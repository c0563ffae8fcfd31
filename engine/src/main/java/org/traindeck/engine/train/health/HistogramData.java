package org.traindeck.engine.train.health;

/**
 * A distribution in TensorBoard's HistogramProto shape: bucket i counts the values in (limits[i-1], limits[i]], the
 * first one everything up to limits[0]. Equal-width buckets between the minimum and the maximum, as
 * {@code tf.summary.histogram} writes them; TensorBoard re-buckets for display.
 */
public record HistogramData(
        double min, double max, long count, double sum, double sumSquares, double[] limits, double[] counts) {

    public static final int BUCKETS = 30;

    /** The histogram of {@code values}, each multiplied by {@code scale}. */
    public static HistogramData of(double[] values, double scale) {
        int n = values.length;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double squares = 0;
        for (int i = 0; i < n; i++) {
            double v = values[i] * scale;
            values[i] = v;
            min = Math.min(min, v);
            max = Math.max(max, v);
            sum += v;
            squares += v * v;
        }
        if (n == 0 || !Double.isFinite(min) || !Double.isFinite(max)) {
            // nothing to count, or not numbers: one empty (or all-counting) bucket keeps the shape valid
            return new HistogramData(
                    n == 0 ? 0 : min, n == 0 ? 0 : max, n, sum, squares, new double[] {Double.MAX_VALUE}, new double[] {
                        n
                    });
        }
        if (min == max) {
            return new HistogramData(min, max, n, sum, squares, new double[] {max}, new double[] {n});
        }
        double width = (max - min) / BUCKETS;
        double[] limits = new double[BUCKETS];
        for (int b = 0; b < BUCKETS; b++) {
            limits[b] = min + width * (b + 1);
        }
        limits[BUCKETS - 1] = max;
        double[] counts = new double[BUCKETS];
        for (int i = 0; i < n; i++) {
            // (limit[b-1], limit[b]]: the bucket whose upper limit is the first at or above the value
            int b = (int) Math.ceil((values[i] - min) / width) - 1;
            b = Math.max(0, Math.min(BUCKETS - 1, b));
            while (b > 0 && values[i] <= limits[b - 1]) {
                b--;
            }
            while (b < BUCKETS - 1 && values[i] > limits[b]) {
                b++;
            }
            counts[b]++;
        }
        return new HistogramData(min, max, n, sum, squares, limits, counts);
    }
}
