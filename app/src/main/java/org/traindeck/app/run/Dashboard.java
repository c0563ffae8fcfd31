package org.traindeck.app.run;

import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.RowConstraints;
import javafx.scene.layout.VBox;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.TelemetryEvent;

import java.awt.Color;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The run side of the window: loss per stage (train and validation), learning rate, memory per device and throughput
 * (total and per device), the run's messages, an error banner and the status bar. Events arrive on any thread into
 * a queue; {@link #drain(int)} applies them on the FX thread, and {@link #refreshCharts()} redraws what changed.
 */
public final class Dashboard extends BorderPane {

    private static final Color[] STAGE_COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
            new Color(0x9467bd), new Color(0xff7f0e), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};

    private final LiveChart loss = new LiveChart("Loss", "loss", false);
    private final LiveChart lr = new LiveChart("Learning rate", "learning rate", false);
    private final LiveChart memory = new LiveChart("Memory per device", "MiB", true);
    private final LiveChart throughput = new LiveChart("Throughput", "samples/s", false);
    private final LiveChart validation = new LiveChart("Validation", "metric", false);
    private final TabPane lossOrValidation = new TabPane();
    private final RunOverlays overlays = new RunOverlays(loss, validation, lr, throughput);
    private final MessagesViewModel messages = new MessagesViewModel();
    private final ListView<String> log = new ListView<>(messages.messages());
    private final Label banner = new Label();
    private final RunSummaryPane summary = new RunSummaryPane();
    private final StatusViewModel status = new StatusViewModel();
    private final StatusBar statusBar = new StatusBar(status);
    private final Queue<EngineEvent> queue = new ConcurrentLinkedQueue<>();
    private final long telemetryStartMillis = System.currentTimeMillis();
    private double lastTotalThroughput;
    /** Stages whose boundary is drawn: a resume announces its stage again, but it is the same boundary. */
    private final Set<Integer> markedStages = new HashSet<>();
    /** Where the memory chart's time axis starts: the run's own start once a run is on, else the window's. */
    private long memoryOriginMillis = telemetryStartMillis;
    private Consumer<String> problemHandler = m -> { };

    public Dashboard() {
        setId("dashboard");
        GridPane charts = new GridPane();
        charts.setHgap(6);
        charts.setVgap(6);
        Tab lossTab = new Tab("Loss", loss);
        lossTab.setId("tab-loss");
        Tab validationTab = new Tab("Validation", validation);
        validationTab.setId("tab-validation");
        lossOrValidation.getTabs().addAll(lossTab, validationTab);
        lossOrValidation.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        lossOrValidation.getStyleClass().add("chart-tabs");
        lossOrValidation.setId("loss-or-validation");
        charts.add(lossOrValidation, 0, 0);
        charts.add(lr, 1, 0);
        charts.add(memory, 0, 1);
        charts.add(throughput, 1, 1);
        for (int i = 0; i < 2; i++) {
            ColumnConstraints c = new ColumnConstraints();
            c.setPercentWidth(50);
            c.setHgrow(Priority.ALWAYS);
            charts.getColumnConstraints().add(c);
            RowConstraints r = new RowConstraints();
            r.setPercentHeight(50);
            r.setVgrow(Priority.ALWAYS);
            charts.getRowConstraints().add(r);
        }
        loss.setId("chart-loss");
        lr.setId("chart-lr");
        memory.setId("chart-memory");
        throughput.setId("chart-throughput");
        validation.setId("chart-validation");
        lr.setEmptyHint("The learning rate of every step, with its schedule, appears here.");
        throughput.setEmptyHint("Samples per second, in total and per device, appear here.");
        validation.setEmptyHint("Validation accuracy (or error, for regression) after each validation appears here.");
        banner.setId("run-banner");
        banner.setWrapText(true);
        banner.setVisible(false);
        banner.setManaged(false);
        banner.setMaxWidth(Double.MAX_VALUE);
        banner.setOnMouseClicked(e -> {
            banner.setVisible(false);
            banner.setManaged(false);
        });
        log.setId("run-log");
        log.setPrefHeight(120);
        // the newest message in view as it comes
        messages.messages().addListener((ListChangeListener<String>) c -> log.scrollTo(log.getItems().size() - 1));
        VBox top = new VBox(4, banner, summary);
        setTop(top);
        setCenter(charts);
        VBox bottom = new VBox(4, log);
        bottom.setPadding(new Insets(4, 0, 0, 0));
        setBottom(bottom);
    }

    /** The run's status: name, stage, epoch, step, times, progress. */
    public StatusViewModel status() {
        return status;
    }

    /** The status bar; the window places it. */
    public StatusBar statusBar() {
        return statusBar;
    }

    public List<LiveChart> charts() {
        return List.of(loss, lr, memory, throughput, validation);
    }

    /** What the empty loss chart says before a run (what Start would do), null for nothing. */
    public void setStartHint(String hint) {
        loss.setEmptyHint(hint);
    }

    public LiveChart validationChart() {
        return validation;
    }

    /** Brings the validation chart to the front (else the loss chart shares its place). */
    public void showValidation(boolean shown) {
        lossOrValidation.getSelectionModel().select(shown ? 1 : 0);
    }

    public LiveChart lossChart() {
        return loss;
    }

    public LiveChart lrChart() {
        return lr;
    }

    public LiveChart memoryChart() {
        return memory;
    }

    public LiveChart throughputChart() {
        return throughput;
    }

    /** The run's messages, listed under the charts. */
    public MessagesViewModel messages() {
        return messages;
    }

    public ListView<String> log() {
        return log;
    }

    /** Who hears about run failures and fallbacks (besides the banner). */
    public void onProblem(Consumer<String> handler) {
        this.problemHandler = handler;
    }

    /** Any thread: queue an event for the next drain. */
    public void offer(EngineEvent event) {
        queue.offer(event);
    }

    /** FX thread: applies up to {@code max} queued events; returns how many. */
    public int drain(int max) {
        int n = 0;
        EngineEvent e;
        while (n < max && (e = queue.poll()) != null) {
            apply(e);
            n++;
        }
        return n;
    }

    /** FX thread: redraws the charts whose data changed; returns how many were redrawn. */
    public int refreshCharts() {
        int n = 0;
        for (LiveChart c : charts()) {
            if (c.refresh()) {
                n++;
            }
        }
        return n;
    }

    /** Other runs' curves drawn next to the one shown, for comparison. */
    public RunOverlays overlays() {
        return overlays;
    }

    /** Forgets the run being shown (not the device telemetry, nor the runs overlaid for comparison). */
    public void clearRun() {
        queue.removeIf(e -> !(e instanceof MetricEvent m) || !m.runName().equals("telemetry"));
        for (LiveChart c : List.of(loss, lr, throughput, validation)) {
            c.clearSeries(key -> !RunOverlays.isOverlay(key));
        }
        messages.clear();
        markedStages.clear();
        banner.setVisible(false);
        banner.setManaged(false);
        summary.hide();
        status.reset();
    }

    private static Color stageColor(int index) {
        return STAGE_COLORS[Math.floorMod(index, STAGE_COLORS.length)];
    }

    private void apply(EngineEvent event) {
        if (event instanceof MetricEvent m) {
            if ("telemetry".equals(m.runName())) {
                telemetry(m);
            } else {
                metric(m);
            }
        } else if (event instanceof LifecycleEvent l) {
            lifecycle(l);
        } else if (event instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.STATUS) {
            addLog(t.wallTimeMillis(), "devices: " + t.message());
        }
    }

    private void metric(MetricEvent m) {
        double step = m.step();
        double t = m.elapsedSeconds();
        switch (m.name()) {
            case MetricNames.TRAIN_LOSS -> loss.series("train/" + m.stageIndex(), "train · " + m.stage(), stageColor(m.stageIndex()), false)
                    .add(step, t, m.value());
            case MetricNames.VAL_LOSS -> loss.series("val/" + m.stageIndex(), "val · " + m.stage(), stageColor(m.stageIndex()), true)
                    .add(step, t, m.value());
            case MetricNames.LR -> lr.series("lr", "learning rate", stageColor(0), false).add(step, t, m.value());
            case MetricNames.THROUGHPUT -> {
                if (m.device() == null) {
                    lastTotalThroughput = m.value();
                    throughput.series("total", "total", new Color(0x333333), false).add(step, t, m.value());
                } else {
                    Color c = throughput.hasSeries(m.device()) ? null : stageColor(throughput.seriesCount() - 1);
                    throughput.series(m.device(), m.device(), c, true).add(step, t, m.value());
                }
            }
            case MetricNames.SCALING_EFFICIENCY -> {
                // the ideal line (devices × one device alone) next to the total shows the scaling efficiency
                if (m.value() > 0 && lastTotalThroughput > 0) {
                    throughput.series("ideal", "ideal: devices × one device", new Color(0x999999), true)
                            .add(step, t, lastTotalThroughput / m.value());
                }
            }
            case MetricNames.STEPS_PER_EPOCH -> status.stepsPerEpoch((long) m.value());
            case MetricNames.VAL_ACCURACY -> {
                validation.series("acc/" + m.stageIndex(), "accuracy · " + m.stage(), stageColor(m.stageIndex()), false)
                        .add(step, t, m.value());
                addLog(m.wallTimeMillis(), String.format(Locale.ROOT,
                        "validation accuracy %.2f %% after epoch %d of \"%s\"", 100 * m.value(), m.epoch() + 1, m.stage()));
            }
            case MetricNames.VAL_MSE -> validation.series("mse/" + m.stageIndex(), "mse · " + m.stage(), stageColor(m.stageIndex()), false)
                    .add(step, t, m.value());
            case MetricNames.VAL_MAE -> validation.series("mae/" + m.stageIndex(), "mae · " + m.stage(), stageColor(m.stageIndex()), true)
                    .add(step, t, m.value());
            default -> { }
        }
        status.metric(m);
    }

    private void telemetry(MetricEvent m) {
        double t = (m.wallTimeMillis() - memoryOriginMillis) / 1000.0;
        if (t < 0) {
            return;
        }
        String name = m.name();
        if (name.endsWith("/memory_used_mib") && name.startsWith("gpu/")) {
            Color c = memory.hasSeries(m.device()) ? null : stageColor(memory.seriesCount());
            memory.series(m.device(), m.device() + " used", c, false).add(t, t, m.value());
        } else if (name.equals("cpu/heap_used_mib")) {
            memory.series("heap", "cpu · Java heap", new Color(0x555555), false).add(t, t, m.value());
        } else if (name.equals("cpu/offheap_mib")) {
            memory.series("offheap", "cpu · outside the heap (ND4J, native)", new Color(0x2ca02c), false).add(t, t, m.value());
        }
    }

    private void lifecycle(LifecycleEvent l) {
        switch (l.kind()) {
            case STAGE_STARTED -> {
                if (markedStages.add(l.stageIndex())) {
                    loss.addMarker(l.step(), l.elapsedSeconds(), l.stage());
                    lr.addMarker(l.step(), l.elapsedSeconds(), l.stage());
                    validation.addMarker(l.step(), l.elapsedSeconds(), l.stage());
                }
            }
            case RUN_STARTED -> startMemoryAxisAt(l);
            case REWIND -> truncateAfterStep(l.step());
            case RUN_RESUMED -> {
                startMemoryAxisAt(l);
                truncateAfterStep(l.step());
            }
            case RUN_FAILED -> showBanner("The run failed: " + l.message(), true);
            case FALLBACK -> showBanner("Fell back: " + l.message(), false);
            // a file the user counts on (metrics, the log, a checkpoint) is no longer being written: say so at once
            case FILE_WRITE_FAILED -> showBanner(l.message(), true);
            default -> { }
        }
        status.lifecycle(l);
        addLog(l.wallTimeMillis(), l.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ": " + l.message());
    }

    private void truncateAfterStep(long step) {
        for (LiveChart c : List.of(loss, lr, throughput, validation)) {
            c.truncateAfterStep(step);
        }
    }

    /**
     * The memory chart follows the run that has just started (its time axis is the run's elapsed time), rather than
     * counting from the window's launch; a past run's events, read from its files, leave it alone.
     */
    private void startMemoryAxisAt(LifecycleEvent l) {
        long origin = l.wallTimeMillis() - Math.round(l.elapsedSeconds() * 1000);
        if (Math.abs(System.currentTimeMillis() - l.wallTimeMillis()) < 60_000 && origin != memoryOriginMillis) {
            memoryOriginMillis = origin;
            memory.clearAll();
        }
    }

    private void showBanner(String message, boolean error) {
        banner.setText(message + "   (click to hide)");
        banner.getStyleClass().setAll("label", error ? "banner-error" : "banner-warning");
        banner.setVisible(true);
        banner.setManaged(true);
        problemHandler.accept(message);
    }

    private void addLog(long millis, String text) {
        messages.add(millis, text);
    }

    /** The end-of-run summary above the charts. */
    public RunSummaryPane summary() {
        return summary;
    }

    public Label banner() {
        return banner;
    }

    public void setDark(boolean dark) {
        charts().forEach(c -> c.setDark(dark));
    }
}
