package org.traindeck.app.charts;

import java.awt.Color;
import java.awt.Paint;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Slider;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.StackPane;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.data.xy.XYSeries;
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
    private final ChartLines lines = new ChartLines();
    private final ChartPlot plot;
    private final ChartControls controls;
    private final Slider smoothing;
    private final CheckBox logScale;
    private final ComboBox<String> xAxis;
    private final ChartOverlay overlay;
    private String emptyHint;
    private final StageMarkers markers = new StageMarkers();
    private final ChartRedraw redraw;
    private final ChartExportTarget exportTarget = new ChartExportTarget();
    private boolean dark;

    public LiveChart(String title, String yLabel, boolean byTimeDefault) {
        this.title = title;
        getStyleClass().add("live-chart");
        // the reduction follows the visible range
        plot = new ChartPlot(title, yLabel, byTimeDefault, lines, this::rangeChanged);
        redraw = new ChartRedraw(lines, plot, markers);
        overlay = new ChartOverlay(idPart());
        ChartHover.install(plot, overlay, this::resetZoom, this::readoutAt);
        controls = new ChartControls(
                idPart(), byTimeDefault, plot.zoomedProperty(), this::resetZoom, this::exportRequested);
        smoothing = controls.smoothing;
        logScale = controls.logScale;
        xAxis = controls.xAxis;
        smoothing.valueProperty().addListener((o, a, b) -> redraw.smoothingChosen());
        logScale.selectedProperty().addListener((o, a, b) -> {
            plot.setLogScale(b);
            applyTheme();
            redraw.markStale();
        });
        xAxis.valueProperty().addListener((o, a, b) -> {
            plot.setXByTime("time".equals(b));
            redraw.markStale();
        });
        setCenter(new StackPane(plot.viewer(), overlay));
        setBottom(controls);
    }

    private void rangeChanged() {
        redraw.markStale();
    }

    /** Whether the user has zoomed in (dragged across the chart); {@link #resetZoom()} shows everything again. */
    public ReadOnlyBooleanProperty zoomedProperty() {
        return plot.zoomedProperty();
    }

    public void resetZoom() {
        plot.resetZoom();
        redraw.markStale();
    }

    /** What the values are ("fraction", "dB"): a chart whose metric depends on the run names it when the run says. */
    public void setYLabel(String label) {
        plot.setYLabel(label);
    }

    public String yLabel() {
        return plot.yLabel();
    }

    /** What the chart says while it has no points (null: nothing). */
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

    /** Where the export menu's files go: who chooses them, where they are written, who hears of a failure. */
    public void setExportTarget(Function<String, Path> chooser, TaskExecutor tasks, Consumer<String> onFailure) {
        exportTarget.set(chooser, tasks, onFailure);
    }

    private void exportRequested(boolean png) {
        exportTarget.export(idPart() + (png ? ".png" : ".csv"), title, () -> png ? pngFile(1200, 700) : csvFile());
    }

    /** The series for {@code key}, created on first use. */
    public SeriesBuffer series(String key, String label, Color color, boolean dashed) {
        if (lines.addIfAbsent(key, label, color, dashed)) {
            redraw.markStale();
        }
        return lines.get(key).data;
    }

    /** How many series the chart has (to give a new one its own colour). */
    public int seriesCount() {
        return lines.count();
    }

    public boolean hasSeries(String key) {
        return lines.get(key) != null;
    }

    public SeriesBuffer data(String key) {
        ChartLine line = lines.get(key);
        return line == null ? null : line.data;
    }

    /** A vertical line at {@code step} (a stage boundary). */
    public void addMarker(double step, double time, String label) {
        markers.add(step, time, label);
        redraw.markStale();
    }

    /** How many stage boundaries the chart draws. */
    public int markerCount() {
        return markers.size();
    }

    /** Drops every point after {@code step} in every series (a rewind or resume). */
    public void truncateAfterStep(double step) {
        lines.all().forEach(l -> l.data.truncateAfterStep(step));
        redraw.markStale();
    }

    /** Drops the series whose keys match, with their lines and legend entries. */
    public void removeSeries(Predicate<String> keys) {
        lines.remove(keys);
        redraw.markStale();
    }

    /** Empties the series whose keys match (they stay, with their colours) and drops the stage boundaries. */
    public void clearSeries(Predicate<String> keys) {
        lines.all().stream().filter(l -> keys.test(l.key)).forEach(l -> l.data.clear());
        markers.clear();
        overlay.hideHover();
        resetZoom();
        redraw.markStale();
    }

    public void clearAll() {
        clearSeries(key -> true);
    }

    /** Points now in all series (the full data). */
    public long totalPoints() {
        return lines.totalPoints();
    }

    /** Points handed to the chart library at the last redraw (the reduction). */
    public long drawnPoints() {
        return redraw.drawnPoints();
    }

    /** Redraws if anything changed since the last time; returns whether it did. Call on the FX thread. */
    public boolean refresh() {
        if (!redraw.due()) {
            return false;
        }
        overlay.showEmpty(totalPoints() == 0 ? emptyHint : null);
        redraw.draw("time".equals(xAxis.getValue()), smoothing.getValue(), logScale.isSelected(), dark);
        return true;
    }

    ValueAxis domainAxisForTest() {
        return plot.plot().getDomainAxis();
    }

    /** Whether a series is drawn with a dot on each point (only while it has a single point). */
    boolean drawsDots(String key) {
        Boolean dots = plot.smoothRenderer().getSeriesShapesVisible(lines.indexOf(key));
        return dots != null && dots;
    }

    ValueAxis rangeAxisForTest() {
        return plot.plot().getRangeAxis();
    }

    /** The highest value drawn for a series at the last redraw (its faint raw line, or the line when unsmoothed). */
    double drawnMax(String key) {
        ChartLine l = lines.get(key);
        XYSeries drawn =
                LineDrawer.weightOf(l, smoothing.getValue(), redraw.unsmoothedWhenShort()) > 0 ? l.raw : l.smooth;
        return drawn.getItemCount() == 0 ? Double.NaN : drawn.getMaxY();
    }

    /** The last value of a series' prominent line (the smoothed one, or the series itself when unsmoothed). */
    double drawnLast(String key) {
        return lines.drawnLast(key);
    }

    /** The keys of the series drawn, in order. */
    public List<String> seriesKeys() {
        return lines.keys();
    }

    /** The colour a series' prominent line is drawn in now. */
    public Paint drawnPaint(String key) {
        return plot.smoothRenderer().getSeriesPaint(lines.indexOf(key));
    }

    /** The stage boundaries' line and name colours as last drawn, keyed "stage line" and "stage label". */
    public Map<String, Paint> markerPaints() {
        return markers.paints();
    }

    /** Every series' value at the point nearest {@code x}, headed by where that is; empty when nothing is drawn. */
    List<String> readoutAt(double x) {
        return LineReadout.at(lines.all(), "time".equals(xAxis.getValue()), x);
    }

    /** The chart as drawn now, as a PNG (drawn here, on the FX thread; encoded and written where the file is). */
    public ChartFile pngFile(int width, int height) {
        return ChartExport.png(plot.chart(), width, height);
    }

    /** Every point of every series as they are now, not the reduction. */
    public ChartFile csvFile() {
        return ChartExport.csv(lines.all());
    }

    public void setDark(boolean dark) {
        this.dark = dark;
        redraw.markStale();
        applyTheme();
    }

    public boolean isDark() {
        return dark;
    }

    private void applyTheme() {
        ChartTheme.apply(plot.chart(), plot.plot(), dark);
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
