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
            int bucket = column(xs[i], xFrom, width, columns);
            int minAt = i;
            int maxAt = i;
            int j = i + 1;
            while (j < to && column(xs[j], xFrom, width, columns) == bucket) {
                minAt = lower(ys, minAt, j);
                maxAt = higher(ys, maxAt, j);
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
            int bucket = column(xs[i], xFrom, width, columns);
            // the column's last point: the first index whose column is greater
            int j = bucket == columns - 1
                    ? to
                    : Math.min(to, Math.max(i + 1, lowerBound(xs, n, xFrom + (bucket + 1) * width)));
            while (j > i + 1 && column(xs[j - 1], xFrom, width, columns) != bucket) {
                j--;
            }
            while (j < to && column(xs[j], xFrom, width, columns) == bucket) {
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
                    minAt = lower(ys, minAt, lo);
                    maxAt = higher(ys, maxAt, hi);
                    k += block;
                } else {
                    minAt = lower(ys, minAt, k);
                    maxAt = higher(ys, maxAt, k);
                    k++;
                }
            }
            count = emit(xs, ys, minAt, maxAt, outX, outY, count);
            i = j;
        }
        return count;
    }

    /** The pixel column of {@code x}: 0 to {@code columns - 1}, a point off the range in the column at its edge. */
    private static int column(double x, double xFrom, double width, int columns) {
        return (int) Math.min(columns - 1, Math.max(0, Math.floor((x - xFrom) / width)));
    }

    /** The lower of two points: {@code candidate} when its value is lower or the current one is NaN. */
    private static int lower(double[] ys, int current, int candidate) {
        return ys[candidate] < ys[current] || Double.isNaN(ys[current]) ? candidate : current;
    }

    /** The higher of two points: {@code candidate} when its value is higher or the current one is NaN. */
    private static int higher(double[] ys, int current, int candidate) {
        return ys[candidate] > ys[current] || Double.isNaN(ys[current]) ? candidate : current;
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
