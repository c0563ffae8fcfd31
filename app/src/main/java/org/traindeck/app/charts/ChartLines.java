package org.traindeck.app.charts;

import java.awt.Color;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * A live chart's series by key, in the order they were added, each with its two drawn lines: the faint raw ones in
 * one dataset of the plot, the prominent (smoothed) ones in the other.
 */
final class ChartLines {

    private final Map<String, ChartLine> lines = new LinkedHashMap<>();
    private final XYSeriesCollection rawSet = new XYSeriesCollection();
    private final XYSeriesCollection smoothSet = new XYSeriesCollection();

    XYSeriesCollection rawSet() {
        return rawSet;
    }

    XYSeriesCollection smoothSet() {
        return smoothSet;
    }

    /** The line for {@code key}, or null when the chart has none. */
    ChartLine get(String key) {
        return lines.get(key);
    }

    /** Adds a line for {@code key}; false (and nothing added) when there is one already. */
    boolean addIfAbsent(String key, String label, Color color, boolean dashed) {
        if (lines.containsKey(key)) {
            return false;
        }
        ChartLine line = new ChartLine(key, label, color, dashed);
        lines.put(key, line);
        rawSet.addSeries(line.raw);
        smoothSet.addSeries(line.smooth);
        return true;
    }

    /** Drops the lines whose keys match, with their drawn lines and legend entries. */
    void remove(Predicate<String> keys) {
        for (ChartLine l : List.copyOf(lines.values())) {
            if (keys.test(l.key)) {
                lines.remove(l.key);
                rawSet.removeSeries(l.raw);
                smoothSet.removeSeries(l.smooth);
            }
        }
    }

    Collection<ChartLine> all() {
        return lines.values();
    }

    int count() {
        return lines.size();
    }

    List<String> keys() {
        return List.copyOf(lines.keySet());
    }

    /** The position of {@code key}'s lines in the datasets (and so in the renderers), or -1. */
    int indexOf(String key) {
        return keys().indexOf(key);
    }

    long totalPoints() {
        return lines.values().stream().mapToLong(l -> l.data.size()).sum();
    }

    /** Whether a series has points that were not drawn yet. */
    boolean changedSinceDrawn() {
        return lines.values().stream().anyMatch(l -> l.data.version() != l.drawnVersion);
    }

    /** The first and the last x of all the series, or +∞ and -∞ when they are empty. */
    double[] xExtent(boolean byTime) {
        double xFrom = Double.POSITIVE_INFINITY;
        double xTo = Double.NEGATIVE_INFINITY;
        for (ChartLine l : lines.values()) {
            if (l.data.size() > 0) {
                double[] xs = l.data.xs(byTime);
                xFrom = Math.min(xFrom, xs[0]);
                xTo = Math.max(xTo, xs[l.data.size() - 1]);
            }
        }
        return new double[] {xFrom, xTo};
    }

    /** The last value of {@code key}'s prominent line (the smoothed one, or the series itself when unsmoothed). */
    double drawnLast(String key) {
        XYSeries drawn = lines.get(key).smooth;
        return drawn.getItemCount() == 0
                ? Double.NaN
                : drawn.getY(drawn.getItemCount() - 1).doubleValue();
    }
}
