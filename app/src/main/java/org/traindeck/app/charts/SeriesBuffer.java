package org.traindeck.app.charts;

import java.util.Arrays;

/**
 * One chart series kept whole, in primitive arrays: step, elapsed seconds and value per point, in arrival order
 * (steps never decrease). Charts never get these arrays: they get a per-pixel reduction of them.
 */
public final class SeriesBuffer {

    private double[] steps = new double[1024];
    private double[] times = new double[1024];
    private double[] values = new double[1024];
    private int size;
    private long version;

    public void add(double step, double time, double value) {
        if (size == steps.length) {
            int capacity = steps.length * 2;
            steps = Arrays.copyOf(steps, capacity);
            times = Arrays.copyOf(times, capacity);
            values = Arrays.copyOf(values, capacity);
        }
        steps[size] = step;
        times[size] = time;
        values[size] = value;
        size++;
        version++;
    }

    /** Drops the points after {@code step} (a rewound or resumed run trains them again). */
    public void truncateAfterStep(double step) {
        int keep = size;
        while (keep > 0 && steps[keep - 1] > step) {
            keep--;
        }
        if (keep != size) {
            size = keep;
            version++;
        }
    }

    public void clear() {
        size = 0;
        version++;
    }

    public int size() {
        return size;
    }

    /** Changes with every change, so a chart knows whether to redraw. */
    public long version() {
        return version;
    }

    public double step(int i) {
        return steps[i];
    }

    public double time(int i) {
        return times[i];
    }

    public double value(int i) {
        return values[i];
    }

    /** The x values by the chosen axis (shared, not a copy: read only, and only up to {@link #size()}). */
    double[] xs(boolean byTime) {
        return byTime ? times : steps;
    }

    double[] values() {
        return values;
    }

    /** Bytes held by the arrays (capacity, not size). */
    public long memoryBytes() {
        return 3L * 8 * steps.length;
    }
}
