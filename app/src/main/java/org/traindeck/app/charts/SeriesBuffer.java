package org.traindeck.app.charts;

import java.util.Arrays;

/**
 * One chart series kept whole, in primitive arrays: step, elapsed seconds and value per point, in arrival order
 * (steps never decrease). Charts never get these arrays: they get a per-pixel reduction of them.
 */
public final class SeriesBuffer {

    /** Points per block of the min/max summary that lets a redraw skip whole blocks. */
    static final int BLOCK = 256;

    private double[] steps = new double[1024];
    private double[] times = new double[1024];
    private double[] values = new double[1024];
    private int[] blockMinAt = new int[8];
    private int[] blockMaxAt = new int[8];
    private int size;
    private long version;
    private long rewrites;

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
        summarise(size);
        size++;
        version++;
    }

    /** Keeps the block holding point {@code i} up to date (where its lowest and highest values are). */
    private void summarise(int i) {
        int b = i / BLOCK;
        if (b >= blockMinAt.length) {
            blockMinAt = Arrays.copyOf(blockMinAt, blockMinAt.length * 2);
            blockMaxAt = Arrays.copyOf(blockMaxAt, blockMaxAt.length * 2);
        }
        if (i % BLOCK == 0) {
            blockMinAt[b] = i;
            blockMaxAt[b] = i;
            return;
        }
        double v = values[i];
        if (v < values[blockMinAt[b]] || Double.isNaN(values[blockMinAt[b]])) {
            blockMinAt[b] = i;
        }
        if (v > values[blockMaxAt[b]] || Double.isNaN(values[blockMaxAt[b]])) {
            blockMaxAt[b] = i;
        }
    }

    /** Drops the points after {@code step} (a rewound or resumed run trains them again). */
    public void truncateAfterStep(double step) {
        int keep = size;
        while (keep > 0 && steps[keep - 1] > step) {
            keep--;
        }
        if (keep != size) {
            size = keep;
            if (size % BLOCK != 0) {
                for (int i = size - size % BLOCK; i < size; i++) {
                    summarise(i);
                }
            }
            version++;
            rewrites++;
        }
    }

    public void clear() {
        size = 0;
        version++;
        rewrites++;
    }

    /** Changes when points are removed (not when they are only added), so derived series know to start over. */
    public long rewrites() {
        return rewrites;
    }

    /** Index of the lowest (or highest) value of block {@code b} (only blocks below size / BLOCK are complete). */
    int blockMinAt(int b) {
        return blockMinAt[b];
    }

    int blockMaxAt(int b) {
        return blockMaxAt[b];
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

    /** Bytes held by the arrays (capacity, not size), block summaries included. */
    public long memoryBytes() {
        return 3L * 8 * steps.length + 2L * 4 * blockMinAt.length;
    }
}
