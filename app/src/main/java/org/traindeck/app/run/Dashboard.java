package org.traindeck.app.run;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import javafx.collections.ListChangeListener;
import javafx.geometry.Orientation;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.VBox;
import org.traindeck.app.audit.LayoutAudit;
import org.traindeck.app.charts.ChartGrid;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.app.layers.LayersView;
import org.traindeck.app.layers.LayersViewModel;
import org.traindeck.app.predictions.PredictionsView;
import org.traindeck.app.predictions.PredictionsViewModel;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.TelemetryEvent;

/**
 * The run side of the window: loss per stage (train and validation), learning rate, memory per device and throughput
 * (total and per device) on the Charts tab, every layer's figures and histograms on the Layers tab, the model's
 * predictions on a few examples on the Predictions tab, the run's
 * messages, an error banner and the status bar. Events arrive on any thread into
 * a queue; {@link #drain(int)} applies them on the FX thread, and {@link #refreshCharts()} redraws what changed.
 */
public final class Dashboard extends BorderPane {

    private final RunCharts charts = new RunCharts();
    private final TabPane lossOrValidation = new TabPane();
    private final RunOverlays overlays = new RunOverlays(charts.loss, charts.validation, charts.lr, charts.throughput);
    private final MessagesViewModel messages = new MessagesViewModel();
    private final ListView<String> log = new ListView<>(messages.messages());
    private final RunBanner banner = new RunBanner();
    private final RunSummaryPane summary = new RunSummaryPane();
    private final StatusViewModel status = new StatusViewModel();
    private final StatusBar statusBar = new StatusBar(status);
    private final Queue<EngineEvent> queue = new ConcurrentLinkedQueue<>();
    private final LayersViewModel layersModel = new LayersViewModel();
    private final LayersView layers = new LayersView(layersModel);
    private final TabPane chartsOrLayers = new TabPane();
    private final Tab layersTab = new Tab("Layers", layers);
    private final PredictionsView predictions = new PredictionsView(new PredictionsViewModel());
    private final SplitPane split = new SplitPane();
    private final DashboardEventApplier applier =
            new DashboardEventApplier(charts, layersModel, predictions.model(), status, messages, banner);

    public Dashboard() {
        setId("dashboard");
        Tab lossTab = new Tab("Loss", charts.loss);
        lossTab.setId("tab-loss");
        Tab validationTab = new Tab("Validation", charts.validation);
        validationTab.setId("tab-validation");
        lossOrValidation.getTabs().addAll(lossTab, validationTab);
        lossOrValidation.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        lossOrValidation.getStyleClass().add("chart-tabs");
        lossOrValidation.setId("loss-or-validation");
        ChartGrid grid = new ChartGrid(6, lossOrValidation, charts.lr, charts.memory, charts.throughput);
        grid.setId("chart-grid");
        ScrollPane gridScroll = new ScrollPane(grid);
        gridScroll.setFitToWidth(true);
        gridScroll.setFitToHeight(true);
        gridScroll.setHbarPolicy(ScrollPane.ScrollBarPolicy.NEVER);
        gridScroll.setId("chart-scroll");
        // a chart half out of view (its controls under the fold) is no use: at the usual sizes the charts fit
        LayoutAudit.mustFit(gridScroll);
        log.setId("run-log");
        log.setPrefHeight(120);
        // the newest message in view as it comes
        messages.messages().addListener((ListChangeListener<String>)
                c -> log.scrollTo(log.getItems().size() - 1));
        VBox top = new VBox(4, banner, summary);
        setTop(top);
        Tab chartsTab = new Tab("Charts", gridScroll);
        chartsTab.setId("tab-charts");
        layersTab.setId("tab-layers");
        // the view is drawn only while it is shown; its model follows the run all along
        layersTab.selectedProperty().addListener((o, was, shown) -> {
            if (shown) {
                layers.refresh();
            }
        });
        Tab predictionsTab = new Tab("Predictions", predictions);
        predictionsTab.setId("tab-predictions");
        chartsOrLayers.getTabs().addAll(chartsTab, layersTab, predictionsTab);
        chartsOrLayers.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        chartsOrLayers.setId("charts-or-layers");
        // the messages below the charts: as tall as the user drags them
        chartsOrLayers.setMinHeight(200);
        log.setMinHeight(48);
        split.setOrientation(Orientation.VERTICAL);
        split.getItems().setAll(chartsOrLayers, log);
        split.setDividerPositions(0.82);
        SplitPane.setResizableWithParent(log, false);
        split.setId("dashboard-split");
        setCenter(split);
    }

    /** The split between the charts and the messages under them (its divider is remembered). */
    public SplitPane split() {
        return split;
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
        return charts.all();
    }

    /** What the empty loss chart says before a run (what Start would do), null for nothing. */
    public void setStartHint(String hint) {
        charts.loss.setEmptyHint(hint);
    }

    public LiveChart validationChart() {
        return charts.validation;
    }

    public LiveChart lossChart() {
        return charts.loss;
    }

    public LiveChart lrChart() {
        return charts.lr;
    }

    public LiveChart memoryChart() {
        return charts.memory;
    }

    public LiveChart throughputChart() {
        return charts.throughput;
    }

    /** Every layer's figures and histograms, on the Layers tab. */
    public LayersView layers() {
        return layers;
    }

    /** The model's predictions on the run's sample examples, on the Predictions tab. */
    public PredictionsView predictions() {
        return predictions;
    }

    /** The tabs that hold the charts, the Layers view and the Predictions view. */
    public TabPane chartsOrLayers() {
        return chartsOrLayers;
    }

    /** The run's messages, listed under the charts. */
    public MessagesViewModel messages() {
        return messages;
    }

    public ListView<String> log() {
        return log;
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
            applier.onEvent(e);
            n++;
        }
        return n;
    }

    /** FX thread: redraws the charts whose data changed; returns how many were redrawn (the Layers view too). */
    public int refreshCharts() {
        int n = layersTab.isSelected() && layers.refresh() ? 1 : 0;
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
        queue.removeIf(e -> !(e instanceof TelemetryEvent t) || t.kind() != TelemetryEvent.Kind.FIGURE);
        charts.clearRun();
        layersModel.clear();
        predictions.model().clear();
        messages.clear();
        banner.dismiss();
        summary.hide();
        status.reset();
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
        layers.setDark(dark);
    }
}
