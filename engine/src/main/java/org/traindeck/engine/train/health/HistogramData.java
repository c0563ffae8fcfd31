package org.traindeck.engine.train.health;

import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A distribution in TensorBoard's HistogramProto shape: bucket i counts the values in (limits[i-1], limits[i]], the
 * first one everything up to limits[0]. Equal-width buckets between the minimum and the maximum, as
 * {@code tf.summary.histogram} writes them; TensorBoard re-buckets for display.
 */
public record HistogramData(
        double min, double max, long count, double sum, double sumSquares, double[] limits, double[] counts) {

    public static final int BUCKETS = 30;

    /**
     * The histogram of every value of {@code arrays}, one array after the other, each read in 'c' order and multiplied
     * by {@code scale}: equal to {@link #of(double[], double)} of the same values, taken without gathering them into
     * one array of doubles (three copies of a model's every parameter, hundreds of MB on a large one).
     */
    public static HistogramData of(List<INDArray> arrays, double scale) {
        List<ArrayValues> values = arrays.stream().map(ArrayValues::of).toList();
        long n = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double squares = 0;
        for (ArrayValues a : values) {
            for (int i = 0; i < a.length(); i++) {
                double v = a.get(i) * scale;
                min = Math.min(min, v);
                max = Math.max(max, v);
                sum += v;
                squares += v * v;
            }
            n += a.length();
        }
        if (n == 0 || !Double.isFinite(min) || !Double.isFinite(max) || min == max) {
            return degenerate(n, min, max, sum, squares);
        }
        double width = (max - min) / BUCKETS;
        double[] limits = limits(min, max, width);
        double[] counts = new double[BUCKETS];
        for (ArrayValues a : values) {
            for (int i = 0; i < a.length(); i++) {
                counts[bucket(a.get(i) * scale, min, width, limits)]++;
            }
        }
        return new HistogramData(min, max, n, sum, squares, limits, counts);
    }

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
        if (n == 0 || !Double.isFinite(min) || !Double.isFinite(max) || min == max) {
            return degenerate(n, min, max, sum, squares);
        }
        double width = (max - min) / BUCKETS;
        double[] limits = limits(min, max, width);
        double[] counts = new double[BUCKETS];
        for (int i = 0; i < n; i++) {
            counts[bucket(values[i], min, width, limits)]++;
        }
        return new HistogramData(min, max, n, sum, squares, limits, counts);
    }

    /** No values, values that are not all numbers, or all one value: one bucket keeps the shape valid. */
    private static HistogramData degenerate(long n, double min, double max, double sum, double squares) {
        if (n == 0 || !Double.isFinite(min) || !Double.isFinite(max)) {
            return new HistogramData(
                    n == 0 ? 0 : min, n == 0 ? 0 : max, n, sum, squares, new double[] {Double.MAX_VALUE}, new double[] {
                        n
                    });
        }
        return new HistogramData(min, max, n, sum, squares, new double[] {max}, new double[] {n});
    }

    private static double[] limits(double min, double max, double width) {
        double[] limits = new double[BUCKETS];
        for (int b = 0; b < BUCKETS; b++) {
            limits[b] = min + width * (b + 1);
        }
        limits[BUCKETS - 1] = max;
        return limits;
    }

    /**
     * (limit[b-1], limit[b]]: the bucket whose upper limit is the first at or above the value. The first guess may be
     * one off at a limit; the comparisons with the limits decide.
     */
    private static int bucket(double v, double min, double width, double[] limits) {
        int b = (int) ((v - min) / width);
        b = Math.max(0, Math.min(BUCKETS - 1, b));
        while (b > 0 && v <= limits[b - 1]) {
            b--;
        }
        while (b < BUCKETS - 1 && v > limits[b]) {
            b++;
        }
        return b;
    }
}
