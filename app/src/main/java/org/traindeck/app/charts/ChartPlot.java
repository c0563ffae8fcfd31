package org.traindeck.app.charts;

import java.awt.geom.Rectangle2D;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.fx.ChartViewer;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;

/**
 * The chart library's side of a live chart: the plot over the raw and the smoothed lines with a renderer for each, its
 * axes (x by step or by time, y linear or log), and the viewer that shows it and zooms on a drag.
 */
final class ChartPlot {

    private final XYLineAndShapeRenderer rawRenderer = new XYLineAndShapeRenderer(true, false);
    private final XYLineAndShapeRenderer smoothRenderer = new XYLineAndShapeRenderer(true, false);
    private final XYPlot plot;
    private final JFreeChart chart;
    private final ChartViewer viewer;
    private final Runnable onZoomedRange;
    private final ReadOnlyBooleanWrapper zoomed = new ReadOnlyBooleanWrapper();
    private String yLabel;

    /** {@code onZoomedRange} runs whenever an axis's range changes while the user has zoomed in. */
    ChartPlot(String title, String yLabel, boolean byTime, ChartLines lines, Runnable onZoomedRange) {
        this.yLabel = yLabel;
        this.onZoomedRange = onZoomedRange;
        rawRenderer.setDefaultCreateEntities(false);
        smoothRenderer.setDefaultCreateEntities(false);
        // one path per series, not one anti-aliased segment per point pair: software rendering (Prism "sw") spent
        // most of each frame stroking ~9,600 separate segments
        rawRenderer.setDrawSeriesLineAsPath(true);
        smoothRenderer.setDrawSeriesLineAsPath(true);
        NumberAxis x = new NumberAxis(byTime ? "time (s)" : "step");
        x.setAutoRangeIncludesZero(false);
        // one point (the first validation, at step 30) spanned no range and read "3E1 3E1 3E1": a range of at least
        // two steps or seconds, whole-number ticks, written as the y axis writes them
        x.setAutoRangeMinimumSize(2);
        x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        x.setNumberFormatOverride(new TickFormat());
        plot = new XYPlot(lines.rawSet(), x, linearAxis(), rawRenderer);
        plot.setDataset(1, lines.smoothSet());
        plot.setRenderer(1, smoothRenderer);
        plot.setOrientation(PlotOrientation.VERTICAL);
        plot.setAxisOffset(RectangleInsets.ZERO_INSETS);
        chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT.deriveFont(13f), plot, true);
        chart.setAntiAlias(true);
        // drag to zoom is the viewer's own handler; it fixes the axes' ranges, which is how a zoom is recognised
        viewer = new ChartViewer(chart, false);
        viewer.setMinSize(200, 140);
        x.addChangeListener(e -> axisRangeChanged());
        plot.getRangeAxis().addChangeListener(e -> axisRangeChanged());
    }

    private ValueAxis linearAxis() {
        NumberAxis y = new NumberAxis(yLabel);
        y.setAutoRangeIncludesZero(false);
        y.setNumberFormatOverride(new TickFormat());
        return y;
    }

    XYPlot plot() {
        return plot;
    }

    JFreeChart chart() {
        return chart;
    }

    ChartViewer viewer() {
        return viewer;
    }

    XYLineAndShapeRenderer rawRenderer() {
        return rawRenderer;
    }

    XYLineAndShapeRenderer smoothRenderer() {
        return smoothRenderer;
    }

    /** A log y axis with 1-2-5 ticks, or a linear one; either starts showing all the data. */
    void setLogScale(boolean log) {
        ValueAxis axis = log ? new DecadeLogAxis(yLabel) : linearAxis();
        axis.addChangeListener(e -> axisRangeChanged());
        plot.setRangeAxis(axis);
    }

    void setYLabel(String label) {
        yLabel = label;
        plot.getRangeAxis().setLabel(label);
    }

    String yLabel() {
        return yLabel;
    }

    void setXByTime(boolean byTime) {
        plot.getDomainAxis().setLabel(byTime ? "time (s)" : "step");
    }

    void resetZoom() {
        plot.getDomainAxis().setAutoRange(true);
        plot.getRangeAxis().setAutoRange(true);
    }

    private void axisRangeChanged() {
        // an axis's range is fixed once the user has dragged across the chart
        boolean now =
                !plot.getDomainAxis().isAutoRange() || !plot.getRangeAxis().isAutoRange();
        if (now) {
            onZoomedRange.run();
        }
        zoomed.set(now);
    }

    ReadOnlyBooleanProperty zoomedProperty() {
        return zoomed.getReadOnlyProperty();
    }

    /** The x range to draw: the zoomed one, or all of {@code dataExtent} (first and last x). */
    double[] shownX(double[] dataExtent) {
        ValueAxis domain = plot.getDomainAxis();
        return domain.isAutoRange() ? dataExtent : new double[] {domain.getLowerBound(), domain.getUpperBound()};
    }

    /** How many columns the lines are reduced to. */
    int columns() {
        // a column every two pixels: lows and highs are still all drawn, with half the segments to render
        double width = viewer.getWidth();
        return Math.max(100, (int) Math.round((width > 0 ? width : 600) / 2));
    }

    /** Runs {@code changes} to the plot's lines and markers, then draws the chart once for all of them. */
    void redrawOnce(Runnable changes) {
        chart.setNotify(false);
        try {
            changes.run();
        } finally {
            chart.setNotify(true);
        }
    }

    /** Where the plot's data is drawn, in the viewer's coordinates; null before the first drawing. */
    Rectangle2D dataArea() {
        if (viewer.getRenderingInfo() == null || viewer.getRenderingInfo().getPlotInfo() == null) {
            return null;
        }
        return viewer.getRenderingInfo().getPlotInfo().getDataArea();
    }

    /** The x value under the viewer's horizontal coordinate {@code screenX}. */
    double xAt(double screenX, Rectangle2D area) {
        return plot.getDomainAxis().java2DToValue(screenX, area, RectangleEdge.BOTTOM);
    }
}
