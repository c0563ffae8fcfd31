package org.traindeck.app.charts;

import java.awt.Color;
import java.awt.Paint;
import java.awt.geom.Rectangle2D;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Slider;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.StackPane;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.fx.ChartViewer;
import org.jfree.chart.fx.interaction.ChartMouseEventFX;
import org.jfree.chart.fx.interaction.ChartMouseListenerFX;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.traindeck.app.tasks.CurrentThreadTaskExecutor;
import org.traindeck.app.tasks.TaskExecutor;

/**
 * A live line chart over full-length series. It draws a min/max-per-pixel reduction of each series (never the raw
 * points) of the visible range, only when something changed and only when asked by {@link #refresh()} (the dashboard
 * asks at most ten times a second). Controls: smoothing (a debiased EMA drawn over the faint raw line, its weight
 * shown), log scale with 1-2-5 ticks, x by step or by time, drag to zoom and reset, a crosshair with every series'
 * value at the mouse, a hint while empty, and export to PNG and CSV.
 */
public final class LiveChart extends BorderPane {

    private final String title;
    private String yLabel;
    private final Map<String, ChartLine> lines = new LinkedHashMap<>();
    private final XYSeriesCollection rawSet = new XYSeriesCollection();
    private final XYSeriesCollection smoothSet = new XYSeriesCollection();
    private final XYLineAndShapeRenderer rawRenderer = new XYLineAndShapeRenderer(true, false);
    private final XYLineAndShapeRenderer smoothRenderer = new XYLineAndShapeRenderer(true, false);
    private final XYPlot plot;
    private final JFreeChart chart;
    private final ChartViewer viewer;
    private final ChartControls controls;
    private final Slider smoothing;
    private final CheckBox logScale;
    private final ComboBox<String> xAxis;
    private final ReadOnlyBooleanWrapper zoomed = new ReadOnlyBooleanWrapper();
    private final ChartOverlay overlay;
    private String emptyHint;
    private final StageMarkers markers = new StageMarkers();
    private boolean dirty = true;
    private long drawnPoints;
    private final LineDrawer drawer = new LineDrawer(rawRenderer, smoothRenderer);
    private boolean dark;
    /** Whether the user has set the smoothing: until then a short series (a few validations) is drawn unsmoothed. */
    private boolean smoothingChosen;

    public LiveChart(String title, String yLabel, boolean byTimeDefault) {
        this.title = title;
        this.yLabel = yLabel;
        getStyleClass().add("live-chart");
        rawRenderer.setDefaultCreateEntities(false);
        smoothRenderer.setDefaultCreateEntities(false);
        // one path per series, not one anti-aliased segment per point pair: software rendering (Prism "sw") spent
        // most of each frame stroking ~9,600 separate segments
        rawRenderer.setDrawSeriesLineAsPath(true);
        smoothRenderer.setDrawSeriesLineAsPath(true);
        NumberAxis x = new NumberAxis(byTimeDefault ? "time (s)" : "step");
        x.setAutoRangeIncludesZero(false);
        // one point (the first validation, at step 30) spanned no range and read "3E1 3E1 3E1": a range of at least
        // two steps or seconds, whole-number ticks, written as the y axis writes them
        x.setAutoRangeMinimumSize(2);
        x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        x.setNumberFormatOverride(new TickFormat());
        NumberAxis y = new NumberAxis(yLabel);
        y.setAutoRangeIncludesZero(false);
        y.setNumberFormatOverride(new TickFormat());
        plot = new XYPlot(rawSet, x, y, rawRenderer);
        plot.setDataset(1, smoothSet);
        plot.setRenderer(1, smoothRenderer);
        plot.setOrientation(PlotOrientation.VERTICAL);
        plot.setAxisOffset(RectangleInsets.ZERO_INSETS);
        chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT.deriveFont(13f), plot, true);
        chart.setAntiAlias(true);
        // drag to zoom is the viewer's own handler; it fixes the axes' ranges, which is how a zoom is recognised
        viewer = new ChartViewer(chart, false);
        viewer.setMinSize(200, 140);
        overlay = new ChartOverlay(idPart());
        viewer.addChartMouseListener(new ChartMouseListenerFX() {
            @Override
            public void chartMouseClicked(ChartMouseEventFX event) {
                if (event.getTrigger().getClickCount() == 2) {
                    resetZoom();
                }
            }

            @Override
            public void chartMouseMoved(ChartMouseEventFX event) {
                hover(event.getTrigger().getX(), event.getTrigger().getY());
            }
        });
        viewer.setOnMouseExited(e -> overlay.hideHover());
        x.addChangeListener(e -> axisRangeChanged());
        y.addChangeListener(e -> axisRangeChanged());
        controls = new ChartControls(
                idPart(), byTimeDefault, zoomed.getReadOnlyProperty(), this::resetZoom, this::exportRequested);
        smoothing = controls.smoothing;
        logScale = controls.logScale;
        xAxis = controls.xAxis;
        smoothing.valueProperty().addListener((o, a, b) -> {
            dirty = true;
            // the user's own setting applies to every series, short ones too
            smoothingChosen = true;
        });
        logScale.selectedProperty().addListener((o, a, b) -> {
            ValueAxis axis = b ? new DecadeLogAxis(yLabel) : linearAxis();
            axis.addChangeListener(e -> axisRangeChanged());
            plot.setRangeAxis(axis);
            applyTheme();
            dirty = true;
        });
        xAxis.valueProperty().addListener((o, a, b) -> {
            plot.getDomainAxis().setLabel("time".equals(b) ? "time (s)" : "step");
            dirty = true;
        });
        setCenter(new StackPane(viewer, overlay));
        setBottom(controls);
    }

    /** Whether the user has zoomed in (dragged across the chart); {@link #resetZoom()} shows everything again. */
    public ReadOnlyBooleanProperty zoomedProperty() {
        return zoomed.getReadOnlyProperty();
    }

    public void resetZoom() {
        plot.getDomainAxis().setAutoRange(true);
        plot.getRangeAxis().setAutoRange(true);
        dirty = true;
    }

    private void axisRangeChanged() {
        boolean now =
                !plot.getDomainAxis().isAutoRange() || !plot.getRangeAxis().isAutoRange();
        if (now) {
            dirty = true; // the reduction follows the visible range
        }
        zoomed.set(now);
    }

    /** What the chart says while it has no points (null: nothing). */
    /** What the values are ("fraction", "dB"): a chart whose metric depends on the run names it when the run says. */
    public void setYLabel(String label) {
        yLabel = label;
        plot.getRangeAxis().setLabel(label);
    }

    public String yLabel() {
        return yLabel;
    }

    public void setEmptyHint(String hint) {
        this.emptyHint = hint;
        overlay.showEmpty(totalPoints() == 0 ? hint : null);
    }

    /** The hint shown now, or null when the chart has points. */
    public String shownEmptyHint() {
        return overlay.emptyHint();
    }

    /** The hover read-out shown now (every series at the crosshair), or null when the mouse is not over the chart. */
    public String shownReadout() {
        return overlay.hoverShown() ? overlay.readoutText() : null;
    }

    private String idPart() {
        return title.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    }

    /** Asked by the export menu; the window sets who answers (a file chooser), where the writing happens, who hears of a failure. */
    private Function<String, Path> exportTarget = suggested -> null;

    private TaskExecutor exportTasks = new CurrentThreadTaskExecutor();
    private Consumer<String> exportFailed = m -> {};

    public void setExportTarget(Function<String, Path> chooser, TaskExecutor tasks, Consumer<String> onFailure) {
        this.exportTarget = chooser;
        this.exportTasks = tasks;
        this.exportFailed = onFailure;
    }

    private void exportRequested(boolean png) {
        String name = idPart() + (png ? ".png" : ".csv");
        Path target = exportTarget.apply(name);
        if (target == null) {
            return;
        }
        ChartFile file = png ? pngFile(1200, 700) : csvFile();
        exportTasks.execute(
                () -> file.writeTo(target),
                () -> {},
                e -> exportFailed.accept("Could not export " + title + " to " + target + ": " + e.getMessage()));
    }

    private ValueAxis linearAxis() {
        NumberAxis y = new NumberAxis(yLabel);
        y.setAutoRangeIncludesZero(false);
        y.setNumberFormatOverride(new TickFormat());
        return y;
    }

    /** The series for {@code key}, created on first use. */
    public SeriesBuffer series(String key, String label, Color color, boolean dashed) {
        ChartLine line = lines.get(key);
        if (line == null) {
            line = new ChartLine(key, label, color, dashed);
            lines.put(key, line);
            rawSet.addSeries(line.raw);
            smoothSet.addSeries(line.smooth);
            dirty = true;
        }
        return line.data;
    }

    /** How many series the chart has (to give a new one its own colour). */
    public int seriesCount() {
        return lines.size();
    }

    public boolean hasSeries(String key) {
        return lines.containsKey(key);
    }

    public SeriesBuffer data(String key) {
        ChartLine line = lines.get(key);
        return line == null ? null : line.data;
    }

    /** A vertical line at {@code step} (a stage boundary). */
    public void addMarker(double step, double time, String label) {
        markers.add(step, time, label);
        dirty = true;
    }

    /** How many stage boundaries the chart draws. */
    public int markerCount() {
        return markers.size();
    }

    /** Drops every point after {@code step} in every series (a rewind or resume). */
    public void truncateAfterStep(double step) {
        lines.values().forEach(l -> l.data.truncateAfterStep(step));
        dirty = true;
    }

    /** Drops the series whose keys match, with their lines and legend entries. */
    public void removeSeries(Predicate<String> keys) {
        for (ChartLine l : List.copyOf(lines.values())) {
            if (keys.test(l.key)) {
                lines.remove(l.key);
                rawSet.removeSeries(l.raw);
                smoothSet.removeSeries(l.smooth);
            }
        }
        dirty = true;
    }

    /** Empties the series whose keys match (they stay, with their colours) and drops the stage boundaries. */
    public void clearSeries(Predicate<String> keys) {
        lines.values().stream().filter(l -> keys.test(l.key)).forEach(l -> l.data.clear());
        markers.clear();
        overlay.hideHover();
        resetZoom();
        dirty = true;
    }

    public void clearAll() {
        lines.values().forEach(l -> l.data.clear());
        markers.clear();
        overlay.hideHover();
        resetZoom();
        dirty = true;
    }

    /** Points now in all series (the full data). */
    public long totalPoints() {
        return lines.values().stream().mapToLong(l -> l.data.size()).sum();
    }

    /** Points handed to the chart library at the last redraw (the reduction). */
    public long drawnPoints() {
        return drawnPoints;
    }

    /** Redraws if anything changed since the last time; returns whether it did. Call on the FX thread. */
    public boolean refresh() {
        boolean changed = dirty;
        for (ChartLine l : lines.values()) {
            if (l.data.version() != l.drawnVersion) {
                changed = true;
            }
        }
        if (!changed) {
            return false;
        }
        dirty = false;
        overlay.showEmpty(totalPoints() == 0 ? emptyHint : null);
        boolean byTime = "time".equals(xAxis.getValue());
        // a column every two pixels: lows and highs are still all drawn, with half the segments to render
        int columns = Math.max(100, (int) Math.round((viewer.getWidth() > 0 ? viewer.getWidth() : 600) / 2));
        double weight = smoothing.getValue();
        double xFrom = Double.POSITIVE_INFINITY;
        double xTo = Double.NEGATIVE_INFINITY;
        for (ChartLine l : lines.values()) {
            if (l.data.size() > 0) {
                double[] xs = l.data.xs(byTime);
                xFrom = Math.min(xFrom, xs[0]);
                xTo = Math.max(xTo, xs[l.data.size() - 1]);
            }
        }
        if (!plot.getDomainAxis().isAutoRange()) {
            xFrom = plot.getDomainAxis().getLowerBound();
            xTo = plot.getDomainAxis().getUpperBound();
        }
        chart.setNotify(false);
        try {
            drawnPoints = drawer.draw(
                    lines.values(), byTime, xFrom, xTo, columns, weight, logScale.isSelected(), !smoothingChosen, dark);
            markers.placeOn(plot, byTime, dark);
        } finally {
            chart.setNotify(true);
        }
        return true;
    }

    ValueAxis domainAxisForTest() {
        return plot.getDomainAxis();
    }

    /** Whether a series is drawn with a dot on each point (only while it has a single point). */
    boolean drawsDots(String key) {
        Boolean dots = smoothRenderer.getSeriesShapesVisible(
                List.copyOf(lines.keySet()).indexOf(key));
        return dots != null && dots;
    }

    ValueAxis rangeAxisForTest() {
        return plot.getRangeAxis();
    }

    /** The highest value drawn for a series at the last redraw (its faint raw line, or the line when unsmoothed). */
    double drawnMax(String key) {
        ChartLine l = lines.get(key);
        XYSeries drawn = LineDrawer.weightOf(l, smoothing.getValue(), !smoothingChosen) > 0 ? l.raw : l.smooth;
        return drawn.getItemCount() == 0 ? Double.NaN : drawn.getMaxY();
    }

    /** The last value of a series' prominent line (the smoothed one, or the series itself when unsmoothed). */
    double drawnLast(String key) {
        XYSeries drawn = lines.get(key).smooth;
        return drawn.getItemCount() == 0
                ? Double.NaN
                : drawn.getY(drawn.getItemCount() - 1).doubleValue();
    }

    /** The keys of the series drawn, in order. */
    public List<String> seriesKeys() {
        return List.copyOf(lines.keySet());
    }

    /** The colour a series' prominent line is drawn in now. */
    public Paint drawnPaint(String key) {
        int i = List.copyOf(lines.keySet()).indexOf(key);
        return smoothRenderer.getSeriesPaint(i);
    }

    /** The stage boundaries' line and name colours as last drawn, keyed "stage line" and "stage label". */
    public Map<String, Paint> markerPaints() {
        return markers.paints();
    }

    private void hover(double screenX, double screenY) {
        if (viewer.getRenderingInfo() == null || viewer.getRenderingInfo().getPlotInfo() == null) {
            return;
        }
        Rectangle2D area = viewer.getRenderingInfo().getPlotInfo().getDataArea();
        if (screenX < area.getMinX() || screenX > area.getMaxX()) {
            overlay.hideHover();
            return;
        }
        double x = plot.getDomainAxis().java2DToValue(screenX, area, RectangleEdge.BOTTOM);
        overlay.showHover(screenX, screenY, area, readoutAt(x));
    }

    /** Every series' value at the point nearest {@code x}, headed by where that is; empty when nothing is drawn. */
    List<String> readoutAt(double x) {
        return LineReadout.at(lines.values(), "time".equals(xAxis.getValue()), x);
    }

    /** The chart as drawn now, as a PNG (drawn here, on the FX thread; encoded and written where the file is). */
    public ChartFile pngFile(int width, int height) {
        return ChartExport.png(chart, width, height);
    }

    /** Every point of every series as they are now, not the reduction. */
    public ChartFile csvFile() {
        return ChartExport.csv(lines.values());
    }

    public void setDark(boolean dark) {
        this.dark = dark;
        dirty = true;
        applyTheme();
    }

    public boolean isDark() {
        return dark;
    }

    private void applyTheme() {
        ChartTheme.apply(chart, plot, dark);
    }

    public Slider smoothingSlider() {
        return smoothing;
    }

    public CheckBox logScaleBox() {
        return logScale;
    }

    public ComboBox<String> xAxisChoice() {
        return xAxis;
    }
}
