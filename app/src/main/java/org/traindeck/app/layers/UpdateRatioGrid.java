package org.traindeck.app.layers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The heat map's data: each layer's update ratio over the run, in a fixed number of step columns. Each cell keeps the
 * lowest and the highest value of its steps; when the run outgrows the columns, adjacent pairs merge and each column
 * covers twice the steps, so memory stays at layers × columns however long the run, and a spike of one step survives
 * every merge. A NaN value sticks to its cell; an empty cell has its low above its high.
 */
public final class UpdateRatioGrid {

    private final int capacity;
    private final List<float[]> lows = new ArrayList<>();
    private final List<float[]> highs = new ArrayList<>();
    private long origin = -1;
    private long stepsPerColumn = 1;
    private int columns;
    private long lastStep = -1;

    /** @param capacity the most columns kept (even, at least 2) */
    public UpdateRatioGrid(int capacity) {
        if (capacity < 2 || capacity % 2 != 0) {
            throw new IllegalArgumentException("the heat map needs an even number of columns, at least 2: " + capacity);
        }
        this.capacity = capacity;
    }

    /** Adds a row for a new layer; returns its index. */
    public int addRow() {
        float[] lo = new float[capacity];
        float[] hi = new float[capacity];
        Arrays.fill(lo, Float.POSITIVE_INFINITY);
        Arrays.fill(hi, Float.NEGATIVE_INFINITY);
        lows.add(lo);
        highs.add(hi);
        return lows.size() - 1;
    }

    public int rows() {
        return lows.size();
    }

    /** Records {@code value} for layer {@code row} at {@code step}. */
    public void add(int row, long step, double value) {
        if (origin < 0) {
            origin = step;
        }
        long offset = Math.max(0, step - origin);
        while (offset / stepsPerColumn >= capacity) {
            mergePairs();
        }
        int c = (int) (offset / stepsPerColumn);
        float v = (float) value;
        float[] lo = lows.get(row);
        float[] hi = highs.get(row);
        if (Float.isNaN(v) || Float.isNaN(lo[c])) {
            lo[c] = Float.NaN;
            hi[c] = Float.NaN;
        } else {
            lo[c] = Math.min(lo[c], v);
            hi[c] = Math.max(hi[c], v);
        }
        columns = Math.max(columns, c + 1);
        lastStep = Math.max(lastStep, step);
    }

    private void mergePairs() {
        for (int r = 0; r < lows.size(); r++) {
            float[] lo = lows.get(r);
            float[] hi = highs.get(r);
            for (int i = 0; i < capacity / 2; i++) {
                int a = 2 * i;
                int b = a + 1;
                if (Float.isNaN(lo[a]) || Float.isNaN(lo[b])) {
                    lo[i] = Float.NaN;
                    hi[i] = Float.NaN;
                } else {
                    lo[i] = Math.min(lo[a], lo[b]);
                    hi[i] = Math.max(hi[a], hi[b]);
                }
            }
            Arrays.fill(lo, capacity / 2, capacity, Float.POSITIVE_INFINITY);
            Arrays.fill(hi, capacity / 2, capacity, Float.NEGATIVE_INFINITY);
        }
        stepsPerColumn *= 2;
        columns = (columns + 1) / 2;
    }

    /**
     * Forgets the steps after {@code step} (a rewind or a resume trains them again). The column holding {@code step}
     * keeps what it had: its steps are no longer told apart.
     */
    public void truncateAfterStep(long step) {
        if (origin < 0) {
            return;
        }
        if (step < origin) {
            clearCells();
            return;
        }
        int keep = (int) Math.min(columns, (step - origin) / stepsPerColumn + 1);
        for (int r = 0; r < lows.size(); r++) {
            Arrays.fill(lows.get(r), keep, capacity, Float.POSITIVE_INFINITY);
            Arrays.fill(highs.get(r), keep, capacity, Float.NEGATIVE_INFINITY);
        }
        columns = keep;
        lastStep = Math.min(lastStep, step);
    }

    private void clearCells() {
        for (int r = 0; r < lows.size(); r++) {
            Arrays.fill(lows.get(r), Float.POSITIVE_INFINITY);
            Arrays.fill(highs.get(r), Float.NEGATIVE_INFINITY);
        }
        origin = -1;
        stepsPerColumn = 1;
        columns = 0;
        lastStep = -1;
    }

    public void clear() {
        lows.clear();
        highs.clear();
        origin = -1;
        stepsPerColumn = 1;
        columns = 0;
        lastStep = -1;
    }

    /** Columns in use (at most the capacity). */
    public int columns() {
        return columns;
    }

    /** The latest step with a value, -1 before any. */
    public long lastStep() {
        return lastStep;
    }

    public long stepsPerColumn() {
        return stepsPerColumn;
    }

    /** The first step of column {@code c}. */
    public long columnStart(int c) {
        return Math.max(0, origin) + c * stepsPerColumn;
    }

    /** Whether layer {@code row} has no value in columns {@code from} (inclusive) to {@code to} (exclusive). */
    public boolean isEmpty(int row, int from, int to) {
        float[] lo = lows.get(row);
        float[] hi = highs.get(row);
        for (int c = from; c < to; c++) {
            if (!(lo[c] > hi[c])) {
                return false;
            }
        }
        return true;
    }

    public double low(int row, int column) {
        return lows.get(row)[column];
    }

    public double high(int row, int column) {
        return highs.get(row)[column];
    }

    /**
     * The value the heat map shows for layer {@code row} over columns {@code from} to {@code to} (exclusive): of all
     * their lows and highs, the one furthest in decades from the healthy centre, so the worst step shows; NaN if any
     * step was NaN; NaN too for no value at all (ask {@link #isEmpty} first).
     */
    public double extreme(int row, int from, int to) {
        float[] lo = lows.get(row);
        float[] hi = highs.get(row);
        double shown = Double.NaN;
        double furthest = -1;
        for (int c = from; c < to; c++) {
            if (Float.isNaN(lo[c])) {
                return Double.NaN;
            }
            if (lo[c] > hi[c]) {
                continue; // no value in this column
            }
            double dl = LogColorScale.distance(lo[c]);
            if (dl > furthest) {
                furthest = dl;
                shown = lo[c];
            }
            double dh = LogColorScale.distance(hi[c]);
            if (dh > furthest) {
                furthest = dh;
                shown = hi[c];
            }
        }
        return shown;
    }

    /** Bytes held by the cells: fixed per layer, whatever the run's length. */
    public long memoryBytes() {
        return 2L * 4 * capacity * lows.size();
    }
}
