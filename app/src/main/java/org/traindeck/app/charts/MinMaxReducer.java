package org.traindeck.app.charts;

/**
 * Reduces a series to what a chart can show: for each pixel column, the lowest and the highest value in it (in the
 * order they occur), so every spike survives and the chart never gets more than about two points per pixel, however
 * long the series. Needs x values that never decrease.
 */
public final class MinMaxReducer {

    private MinMaxReducer() {}

    /**
     * @param xs      x values (only the first {@code n} are read)
     * @param ys      y values
     * @param n       points in the series
     * @param xFrom   left edge of the visible range
     * @param xTo     right edge
     * @param columns pixel columns (buckets)
     * @param outX    receives the reduced x values (at least 2 × columns + 2 long)
     * @param outY    receives the reduced y values
     * @return how many points were written
     */
    public static int reduce(
            double[] xs, double[] ys, int n, double xFrom, double xTo, int columns, double[] outX, double[] outY) {
        if (n == 0 || columns < 1) {
            return 0;
        }
        int from = lowerBound(xs, n, xFrom);
        int to = upperBound(xs, n, xTo);
        if (to - from <= 2L * columns) {
            int count = 0;
            for (int i = from; i < to; i++) {
                outX[count] = xs[i];
                outY[count++] = ys[i];
            }
            return count;
        }
        double width = xTo > xFrom ? (xTo - xFrom) / columns : 1;
        int count = 0;
        int i = from;
        while (i < to) {
            int bucket = (int) Math.min(columns - 1, Math.max(0, Math.floor((xs[i] - xFrom) / width)));
            int minAt = i;
            int maxAt = i;
            int j = i + 1;
            while (j < to && (int) Math.min(columns - 1, Math.max(0, Math.floor((xs[j] - xFrom) / width))) == bucket) {
                if (ys[j] < ys[minAt] || Double.isNaN(ys[minAt])) {
                    minAt = j;
                }
                if (ys[j] > ys[maxAt] || Double.isNaN(ys[maxAt])) {
                    maxAt = j;
                }
                j++;
            }
            count = emit(xs, ys, minAt, maxAt, outX, outY, count);
            i = j;
        }
        return count;
    }

    /**
     * The same reduction straight from a {@link SeriesBuffer}: within a pixel column, whole blocks of points are
     * taken from the buffer's block summary instead of being scanned, so a redraw costs about (columns × block)
     * operations however long the series. Gives exactly what {@link #reduce(double[], double[], int, double, double,
     * int, double[], double[])} gives.
     */
    public static int reduce(
            SeriesBuffer series, boolean byTime, double xFrom, double xTo, int columns, double[] outX, double[] outY) {
        int n = series.size();
        double[] xs = series.xs(byTime);
        double[] ys = series.values();
        if (n == 0 || columns < 1) {
            return 0;
        }
        int from = lowerBound(xs, n, xFrom);
        int to = upperBound(xs, n, xTo);
        if (to - from <= 2L * columns) {
            return reduce(xs, ys, n, xFrom, xTo, columns, outX, outY);
        }
        double width = xTo > xFrom ? (xTo - xFrom) / columns : 1;
        int block = SeriesBuffer.BLOCK;
        int count = 0;
        int i = from;
        while (i < to) {
            int bucket = (int) Math.min(columns - 1, Math.max(0, Math.floor((xs[i] - xFrom) / width)));
            // the column's last point: the first index whose column is greater
            int j = bucket == columns - 1
                    ? to
                    : Math.min(to, Math.max(i + 1, lowerBound(xs, n, xFrom + (bucket + 1) * width)));
            while (j > i + 1
                    && (int) Math.min(columns - 1, Math.max(0, Math.floor((xs[j - 1] - xFrom) / width))) != bucket) {
                j--;
            }
            while (j < to && (int) Math.min(columns - 1, Math.max(0, Math.floor((xs[j] - xFrom) / width))) == bucket) {
                j++;
            }
            int minAt = i;
            int maxAt = i;
            int k = i;
            while (k < j) {
                if (k % block == 0 && k + block <= j && k + block <= n - n % block) {
                    int b = k / block;
                    int lo = series.blockMinAt(b);
                    int hi = series.blockMaxAt(b);
                    if (ys[lo] < ys[minAt] || Double.isNaN(ys[minAt])) {
                        minAt = lo;
                    }
                    if (ys[hi] > ys[maxAt] || Double.isNaN(ys[maxAt])) {
                        maxAt = hi;
                    }
                    k += block;
                } else {
                    if (ys[k] < ys[minAt] || Double.isNaN(ys[minAt])) {
                        minAt = k;
                    }
                    if (ys[k] > ys[maxAt] || Double.isNaN(ys[maxAt])) {
                        maxAt = k;
                    }
                    k++;
                }
            }
            count = emit(xs, ys, minAt, maxAt, outX, outY, count);
            i = j;
        }
        return count;
    }

    /** Writes a column's low and high points in the order they occur; returns the new count. */
    private static int emit(double[] xs, double[] ys, int minAt, int maxAt, double[] outX, double[] outY, int count) {
        int first = Math.min(minAt, maxAt);
        int second = Math.max(minAt, maxAt);
        outX[count] = xs[first];
        outY[count++] = ys[first];
        if (second != first) {
            outX[count] = xs[second];
            outY[count++] = ys[second];
        }
        return count;
    }

    /** First index with x ≥ value. */
    static int lowerBound(double[] xs, int n, double value) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (xs[mid] < value) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** First index with x > value. */
    static int upperBound(double[] xs, int n, double value) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (xs[mid] <= value) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
