package org.traindeck.app.charts;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.Slider;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.fx.ChartViewer;
import org.jfree.chart.fx.interaction.ChartMouseEventFX;
import org.jfree.chart.fx.interaction.ChartMouseListenerFX;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.traindeck.app.tasks.CurrentThreadTaskExecutor;
import org.traindeck.app.tasks.TaskExecutor;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import javax.imageio.ImageIO;

/**
 * A live line chart over full-length series. It draws a min/max-per-pixel reduction of each series (never the raw
 * points), only when something changed and only when asked by {@link #refresh()} (the dashboard asks at most ten
 * times a second). Controls: smoothing (a debiased EMA drawn over the faint raw line), log scale, x by step or by
 * time, a hover read-out, and export to PNG and CSV.
 */
public final class LiveChart extends BorderPane {

    /** A series: its full data and how it is drawn. */
    private static final class Line {
        final String key;
        final String label;
        final Color color;
        final boolean dashed;
        final SeriesBuffer data = new SeriesBuffer();
        final XYSeries raw;
        final XYSeries smooth;
        /** The debiased EMA of data, extended as points arrive (its state: the running average and its count). */
        final SeriesBuffer smoothed = new SeriesBuffer();
        long smoothedRewrites = -1;
        Smoothing ema = new Smoothing(-1);
        long drawnVersion = -1;

        Line(String key, String label, Color color, boolean dashed) {
            this.key = key;
            this.label = label;
            this.color = color;
            this.dashed = dashed;
            this.raw = new XYSeries(label + " (raw)", false, true);
            this.smooth = new XYSeries(label, false, true);
        }
    }

    private final String title;
    private final String yLabel;
    private final Map<String, Line> lines = new LinkedHashMap<>();
    private final XYSeriesCollection rawSet = new XYSeriesCollection();
    private final XYSeriesCollection smoothSet = new XYSeriesCollection();
    private final XYLineAndShapeRenderer rawRenderer = new XYLineAndShapeRenderer(true, false);
    private final XYLineAndShapeRenderer smoothRenderer = new XYLineAndShapeRenderer(true, false);
    private final XYPlot plot;
    private final JFreeChart chart;
    private final ChartViewer viewer;
    private final Slider smoothing = new Slider(0, 0.99, 0.6);
    private final CheckBox logScale = new CheckBox("log");
    private final ComboBox<String> xAxis = new ComboBox<>();
    private final Label hover = new Label(" ");
    private final List<ValueMarker> markers = new ArrayList<>();
    private final List<double[]> markerSteps = new ArrayList<>();
    private boolean dirty = true;
    private long drawnPoints;
    private double[] scratchX = new double[0];
    private double[] scratchY = new double[0];
    private boolean dark;

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
        NumberAxis y = new NumberAxis(yLabel);
        y.setAutoRangeIncludesZero(false);
        plot = new XYPlot(rawSet, x, y, rawRenderer);
        plot.setDataset(1, smoothSet);
        plot.setRenderer(1, smoothRenderer);
        plot.setOrientation(PlotOrientation.VERTICAL);
        plot.setAxisOffset(RectangleInsets.ZERO_INSETS);
        chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT.deriveFont(13f), plot, true);
        chart.setAntiAlias(true);
        viewer = new ChartViewer(chart, false);
        viewer.setMinSize(200, 140);
        viewer.addChartMouseListener(new ChartMouseListenerFX() {
            @Override
            public void chartMouseClicked(ChartMouseEventFX event) {
            }

            @Override
            public void chartMouseMoved(ChartMouseEventFX event) {
                showValueAt(event.getTrigger().getX());
            }
        });
        smoothing.setPrefWidth(90);
        smoothing.setTooltip(new Tooltip("smoothing: a debiased moving average over the faint raw line"));
        smoothing.valueProperty().addListener((o, a, b) -> dirty = true);
        logScale.selectedProperty().addListener((o, a, b) -> {
            plot.setRangeAxis(b ? logAxis() : linearAxis());
            applyTheme();
            dirty = true;
        });
        xAxis.getItems().addAll("step", "time");
        xAxis.setValue(byTimeDefault ? "time" : "step");
        xAxis.valueProperty().addListener((o, a, b) -> {
            plot.getDomainAxis().setLabel("time".equals(b) ? "time (s)" : "step");
            dirty = true;
        });
        Button png = new Button("PNG");
        png.setTooltip(new Tooltip("save this chart as a PNG image"));
        png.setOnAction(e -> exportRequested(true));
        Button csv = new Button("CSV");
        csv.setTooltip(new Tooltip("save every point of every series as CSV"));
        csv.setOnAction(e -> exportRequested(false));
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        HBox controls = new HBox(6, new Label("smooth"), smoothing, logScale, xAxis, spacer, hover, png, csv);
        controls.setAlignment(Pos.CENTER_LEFT);
        controls.setPadding(new Insets(2, 4, 2, 4));
        controls.getStyleClass().add("chart-controls");
        setCenter(viewer);
        setBottom(controls);
        smoothing.setId(idPart() + "-smoothing");
        logScale.setId(idPart() + "-log");
        xAxis.setId(idPart() + "-x");
        png.setId(idPart() + "-png");
        csv.setId(idPart() + "-csv");
        hover.setId(idPart() + "-hover");
    }

    private String idPart() {
        return title.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    }

    /** Asked by the export buttons; the window sets who answers (a file chooser) and where the writing happens. */
    private Function<String, Path> exportTarget = suggested -> null;
    private TaskExecutor exportTasks = new CurrentThreadTaskExecutor();

    public void setExportTarget(Function<String, Path> chooser, TaskExecutor tasks) {
        this.exportTarget = chooser;
        this.exportTasks = tasks;
    }

    private void exportRequested(boolean png) {
        String name = idPart() + (png ? ".png" : ".csv");
        Path target = exportTarget.apply(name);
        if (target == null) {
            return;
        }
        ChartFile file = png ? pngFile(1200, 700) : csvFile();
        exportTasks.execute(() -> file.writeTo(target), () -> { },
                e -> hover.setText("export failed: " + e.getMessage()));
    }

    private ValueAxis linearAxis() {
        NumberAxis y = new NumberAxis(yLabel);
        y.setAutoRangeIncludesZero(false);
        return y;
    }

    private ValueAxis logAxis() {
        LogAxis y = new LogAxis(yLabel);
        y.setSmallestValue(1e-12);
        return y;
    }

    /** The series for {@code key}, created on first use. */
    public SeriesBuffer series(String key, String label, Color color, boolean dashed) {
        Line line = lines.get(key);
        if (line == null) {
            line = new Line(key, label, color, dashed);
            lines.put(key, line);
            rawSet.addSeries(line.raw);
            smoothSet.addSeries(line.smooth);
            int i = rawSet.getSeriesCount() - 1;
            BasicStroke stroke = dashed
                    ? new BasicStroke(1.6f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f, new float[] {5f, 4f}, 0f)
                    : new BasicStroke(1.6f);
            smoothRenderer.setSeriesPaint(i, color);
            smoothRenderer.setSeriesStroke(i, stroke);
            rawRenderer.setSeriesStroke(i, new BasicStroke(1f));
            rawRenderer.setSeriesVisibleInLegend(i, false);
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
        Line line = lines.get(key);
        return line == null ? null : line.data;
    }

    /** A vertical line at {@code step} (a stage boundary). */
    public void addMarker(double step, double time, String label) {
        ValueMarker m = new ValueMarker(step);
        m.setLabel(label);
        m.setPaint(new Color(140, 140, 140));
        m.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
        m.setStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f, new float[] {3f, 3f}, 0f));
        markers.add(m);
        markerSteps.add(new double[] {step, time});
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

    public void clearAll() {
        lines.values().forEach(l -> l.data.clear());
        markers.clear();
        markerSteps.clear();
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

    public void markDirty() {
        dirty = true;
    }

    /** Extends (or, after a rewind or a new weight, rebuilds) a line's smoothed series. */
    private static void smooth(Line l, double weight) {
        if (l.smoothedRewrites != l.data.rewrites() || l.ema.weight() != weight) {
            l.smoothed.clear();
            l.ema = new Smoothing(weight);
            l.smoothedRewrites = l.data.rewrites();
        }
        for (int i = l.smoothed.size(); i < l.data.size(); i++) {
            l.smoothed.add(l.data.step(i), l.data.time(i), l.ema.next(l.data.value(i)));
        }
    }

    /** Redraws if anything changed since the last time; returns whether it did. Call on the FX thread. */
    public boolean refresh() {
        boolean changed = dirty;
        for (Line l : lines.values()) {
            if (l.data.version() != l.drawnVersion) {
                changed = true;
            }
        }
        if (!changed) {
            return false;
        }
        dirty = false;
        boolean byTime = "time".equals(xAxis.getValue());
        // a column every two pixels: lows and highs are still all drawn, with half the segments to render
        int columns = Math.max(100, (int) Math.round((viewer.getWidth() > 0 ? viewer.getWidth() : 600) / 2));
        double weight = smoothing.getValue();
        double xFrom = Double.POSITIVE_INFINITY;
        double xTo = Double.NEGATIVE_INFINITY;
        for (Line l : lines.values()) {
            if (l.data.size() > 0) {
                double[] xs = l.data.xs(byTime);
                xFrom = Math.min(xFrom, xs[0]);
                xTo = Math.max(xTo, xs[l.data.size() - 1]);
            }
        }
        chart.setNotify(false);
        try {
            long points = 0;
            if (scratchX.length < 2 * columns + 4) {
                scratchX = new double[2 * columns + 4];
                scratchY = new double[2 * columns + 4];
            }
            boolean log = logScale.isSelected();
            for (Line l : lines.values()) {
                l.raw.clear();
                l.smooth.clear();
                l.drawnVersion = l.data.version();
                if (l.data.size() == 0) {
                    continue;
                }
                int count = MinMaxReducer.reduce(l.data, byTime, xFrom, xTo, columns, scratchX, scratchY);
                XYSeries rawTarget = weight > 0 ? l.raw : l.smooth;
                for (int i = 0; i < count; i++) {
                    if (!log || scratchY[i] > 0) {
                        rawTarget.add(scratchX[i], scratchY[i], false);
                    }
                }
                points += count;
                if (weight > 0) {
                    smooth(l, weight);
                    count = MinMaxReducer.reduce(l.smoothed, byTime, xFrom, xTo, columns, scratchX, scratchY);
                    for (int i = 0; i < count; i++) {
                        if (!log || scratchY[i] > 0) {
                            l.smooth.add(scratchX[i], scratchY[i], false);
                        }
                    }
                    points += count;
                }
                l.raw.fireSeriesChanged();
                l.smooth.fireSeriesChanged();
            }
            int i = 0;
            for (Line l : lines.values()) {
                Color c = l.color;
                rawRenderer.setSeriesPaint(i, new Color(c.getRed(), c.getGreen(), c.getBlue(), weight > 0 ? 70 : 255));
                i++;
            }
            plot.clearDomainMarkers();
            for (int m = 0; m < markers.size(); m++) {
                markers.get(m).setValue(markerSteps.get(m)[byTime ? 1 : 0]);
                plot.addDomainMarker(markers.get(m));
            }
            drawnPoints = points;
        } finally {
            chart.setNotify(true);
        }
        return true;
    }

    /** Bytes held by the series' arrays (raw and smoothed). */
    public long memoryBytes() {
        return lines.values().stream().mapToLong(l -> l.data.memoryBytes() + l.smoothed.memoryBytes()).sum();
    }

    private void showValueAt(double screenX) {
        if (viewer.getRenderingInfo() == null || viewer.getRenderingInfo().getPlotInfo() == null) {
            return;
        }
        Rectangle2D area = viewer.getRenderingInfo().getPlotInfo().getDataArea();
        double x = plot.getDomainAxis().java2DToValue(screenX, area, RectangleEdge.BOTTOM);
        boolean byTime = "time".equals(xAxis.getValue());
        StringBuilder text = new StringBuilder();
        for (Line l : lines.values()) {
            int n = l.data.size();
            if (n == 0) {
                continue;
            }
            double[] xs = l.data.xs(byTime);
            int i = Math.min(n - 1, MinMaxReducer.lowerBound(xs, n, x));
            if (i > 0 && Math.abs(xs[i - 1] - x) < Math.abs(xs[i] - x)) {
                i--;
            }
            if (text.length() > 0) {
                text.append("   ");
            }
            text.append(String.format(Locale.ROOT, "%s %.4g @ %s %.0f", l.label, l.data.value(i), byTime ? "t" : "step", xs[i]));
            if (text.length() > 120) {
                break;
            }
        }
        hover.setText(text.toString());
    }

    /** The chart as drawn now, as a PNG (drawn here, on the FX thread; encoded and written where the file is). */
    public ChartFile pngFile(int width, int height) {
        BufferedImage image = chart.createBufferedImage(width, height);
        return file -> ImageIO.write(image, "png", file.toFile());
    }

    /** Every point of every series as they are now, not the reduction. */
    public ChartFile csvFile() {
        List<String> labels = new ArrayList<>();
        List<double[][]> columns = new ArrayList<>();
        for (Line l : lines.values()) {
            int n = l.data.size();
            double[][] c = new double[3][n];
            for (int i = 0; i < n; i++) {
                c[0][i] = l.data.step(i);
                c[1][i] = l.data.time(i);
                c[2][i] = l.data.value(i);
            }
            labels.add('"' + l.label.replace("\"", "\"\"") + '"');
            columns.add(c);
        }
        return file -> {
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                w.write("series,step,time,value\n");
                for (int s = 0; s < labels.size(); s++) {
                    double[][] c = columns.get(s);
                    for (int i = 0; i < c[0].length; i++) {
                        w.write(labels.get(s) + "," + c[0][i] + "," + c[1][i] + "," + c[2][i] + "\n");
                    }
                }
            }
        };
    }

    public void setDark(boolean dark) {
        this.dark = dark;
        applyTheme();
    }

    private void applyTheme() {
        Color background = dark ? new Color(0x25, 0x28, 0x2e) : Color.WHITE;
        Color text = dark ? new Color(0xdd, 0xdd, 0xdd) : new Color(0x22, 0x22, 0x22);
        Color grid = dark ? new Color(0x44, 0x48, 0x50) : new Color(0xdd, 0xdd, 0xdd);
        chart.setBackgroundPaint(background);
        chart.getTitle().setPaint(text);
        if (chart.getLegend() != null) {
            chart.getLegend().setBackgroundPaint(background);
            chart.getLegend().setItemPaint(text);
        }
        plot.setBackgroundPaint(background);
        plot.setDomainGridlinePaint(grid);
        plot.setRangeGridlinePaint(grid);
        for (ValueAxis a : new ValueAxis[] {plot.getDomainAxis(), plot.getRangeAxis()}) {
            a.setLabelPaint(text);
            a.setTickLabelPaint(text);
        }
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
