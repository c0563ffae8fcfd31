package org.traindeck.engine.events;

import java.util.EnumSet;
import java.util.Set;

/**
 * How the window handles a metric: the charts, the dashboard, the runs overlaid for comparison and the end-of-run
 * summary switch on a metric's route (from {@link MetricTable}), never on its name's spelling. A route names the views
 * its metrics are shown in; a metric of {@link MetricTable} may be shown in fewer.
 */
public enum MetricRoute {
    TRAIN_LOSS(View.LOSS_CHART, View.RUN_SUMMARY, View.OVERLAYS),
    VALIDATION_LOSS(View.LOSS_CHART, View.RUN_SUMMARY, View.OVERLAYS, View.EPOCH_FIGURES),
    /** A stage's weight average (val_ema/loss), beside its weights' validation loss. */
    EMA_VALIDATION_LOSS(View.LOSS_CHART, View.EPOCH_FIGURES),
    LEARNING_RATE(View.LR_CHART, View.OVERLAYS),
    THROUGHPUT(View.THROUGHPUT_CHART),
    /** Drawn as the ideal line next to the total throughput. */
    SCALING_EFFICIENCY(View.THROUGHPUT_CHART),
    /**
     * A diffusion model's projection error (its generated volumes' projections against the input views): a physics
     * loss, drawn per stage beside the training and validation losses.
     */
    PROJECTION_ERROR(View.LOSS_CHART, View.RUN_SUMMARY, View.EPOCH_FIGURES),
    /** The task's validation figures (accuracy, mean IoU, PSNR…), the EMA's too: one unit on the validation chart. */
    TASK_METRIC(View.VALIDATION_CHART, View.RUN_SUMMARY, View.OVERLAYS, View.EPOCH_FIGURES),
    /** {@code layer/<node>/<figure>}: the Layers tab. */
    LAYER_FIGURE(View.LAYERS_TAB),
    STEPS_PER_EPOCH(View.STATUS_BAR),
    /** Written to the run's files (metrics.jsonl and .csv, TensorBoard), drawn nowhere in the window. */
    FILES_ONLY(),
    /** Telemetry ({@code TelemetryEvent}s, no run's): memory on the memory chart and in the Devices tab. */
    DEVICE_MEMORY(View.MEMORY_CHART, View.DEVICES_TAB),
    /** Telemetry shown as figures in the Devices tab ({@code traindeck devices --watch} prints every figure). */
    DEVICE_FIGURE(View.DEVICES_TAB);

    /** The places a metric can be shown. */
    public enum View {
        LOSS_CHART,
        LR_CHART,
        THROUGHPUT_CHART,
        VALIDATION_CHART,
        MEMORY_CHART,
        LAYERS_TAB,
        STATUS_BAR,
        DEVICES_TAB,
        RUN_SUMMARY,
        /** Other runs' curves drawn next to the one shown, from the Runs tab. */
        OVERLAYS,
        /** A line in the dashboard's event log each time it is measured. */
        EVENT_LOG,
        /** An epoch-level figure: on the CLI's line at each epoch's end, in train.log and in traindeck compare. */
        EPOCH_FIGURES
    }

    private final Set<View> views;

    MetricRoute(View... views) {
        this.views = views.length == 0 ? Set.of() : Set.copyOf(EnumSet.of(views[0], views));
    }

    public Set<View> views() {
        return views;
    }
}
