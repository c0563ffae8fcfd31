package org.traindeck.app.charts;

import java.awt.BasicStroke;
import java.awt.Color;
import java.util.Collection;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;

/**
 * Draws a chart's lines as the library sees them: each series reduced to its lows and highs per column of the visible
 * range, the smoothed line over a faint raw one, and each line's colour and stroke.
 */
final class LineDrawer {

    private static final BasicStroke THIN = new BasicStroke(1f);
    private static final BasicStroke SOLID = new BasicStroke(1.6f);
    private static final BasicStroke DASHED =
            new BasicStroke(1.6f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f, new float[] {5f, 4f}, 0f);

    /** Fewer points than this are not smoothed unless the user asks for it. */
    static final int SHORT_SERIES = 50;

    private final XYLineAndShapeRenderer rawRenderer;
    private final XYLineAndShapeRenderer smoothRenderer;
    private double[] scratchX = new double[0];
    private double[] scratchY = new double[0];

    LineDrawer(XYLineAndShapeRenderer rawRenderer, XYLineAndShapeRenderer smoothRenderer) {
        this.rawRenderer = rawRenderer;
        this.smoothRenderer = smoothRenderer;
    }

    /**
     * Refills every line's drawn series from its data over [xFrom, xTo] in {@code columns} columns; with a smoothing
     * weight the raw line is drawn faint under the smoothed one. On a log scale, values ≤ 0 are left out. Returns the
     * points handed to the library.
     */
    long draw(
            Collection<ChartLine> lines,
            boolean byTime,
            double xFrom,
            double xTo,
            int columns,
            double weight,
            boolean log) {
        return draw(lines, byTime, xFrom, xTo, columns, weight, log, false, false);
    }

    /**
     * As above; {@code rawWhenShort}: a series of fewer than {@link #SHORT_SERIES} points is drawn as it is (an EMA
     * over 5 to 8 validations lags far behind the last value); {@code dark}: colours made readable on the dark theme.
     */
    long draw(
            Collection<ChartLine> lines,
            boolean byTime,
            double xFrom,
            double xTo,
            int columns,
            double chosenWeight,
            boolean log,
            boolean rawWhenShort,
            boolean dark) {
        if (scratchX.length < 2 * columns + 4) {
            scratchX = new double[2 * columns + 4];
            scratchY = new double[2 * columns + 4];
        }
        long points = 0;
        for (ChartLine l : lines) {
            l.raw.clear();
            l.smooth.clear();
            l.drawnVersion = l.data.version();
            if (l.data.size() == 0) {
                continue;
            }
            double weight = weightOf(l, chosenWeight, rawWhenShort);
            points += reduceInto(weight > 0 ? l.raw : l.smooth, l.data, byTime, xFrom, xTo, columns, log);
            if (weight > 0) {
                l.extendSmoothed(weight);
                points += reduceInto(l.smooth, l.smoothed, byTime, xFrom, xTo, columns, log);
            }
            l.raw.fireSeriesChanged();
            l.smooth.fireSeriesChanged();
        }
        style(lines, chosenWeight, rawWhenShort, dark);
        return points;
    }

    static double weightOf(ChartLine l, double chosen, boolean rawWhenShort) {
        return rawWhenShort && l.data.size() < SHORT_SERIES ? 0 : chosen;
    }

    private int reduceInto(
            XYSeries target, SeriesBuffer data, boolean byTime, double xFrom, double xTo, int columns, boolean log) {
        int count = MinMaxReducer.reduce(data, byTime, xFrom, xTo, columns, scratchX, scratchY);
        for (int i = 0; i < count; i++) {
            if (!log || scratchY[i] > 0) {
                target.add(scratchX[i], scratchY[i], false);
            }
        }
        return count;
    }

    // by position, every time: removing a series (an overlaid run) moves the ones after it
    private void style(Collection<ChartLine> lines, double chosenWeight, boolean rawWhenShort, boolean dark) {
        int i = 0;
        for (ChartLine l : lines) {
            Color c = ChartPalette.readable(l.color, dark);
            double weight = weightOf(l, chosenWeight, rawWhenShort);
            rawRenderer.setSeriesPaint(i, new Color(c.getRed(), c.getGreen(), c.getBlue(), weight > 0 ? 70 : 255));
            rawRenderer.setSeriesStroke(i, THIN);
            rawRenderer.setSeriesVisibleInLegend(i, false);
            smoothRenderer.setSeriesPaint(i, c);
            smoothRenderer.setSeriesStroke(i, l.dashed ? DASHED : SOLID);
            // a line needs two points: a series' first point (the first validation) is drawn as a dot
            smoothRenderer.setSeriesShapesVisible(i, l.data.size() == 1);
            i++;
        }
    }
}
