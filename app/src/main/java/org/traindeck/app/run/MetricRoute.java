package org.traindeck.app.run;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.TelemetryNames;

/**
 * Where each metric the engine publishes is shown: the one table from metric names (and name prefixes) to the
 * window's charts and views. The dashboard, the charts, the runs overlaid for comparison and the end-of-run summary
 * switch on a metric's route, never on its name's spelling; {@code MetricRoutesTest} checks that every name the engine
 * publishes is in the table, shown somewhere or listed as {@link #FILES_ONLY}.
 */
public enum MetricRoute {
    TRAIN_LOSS(View.LOSS_CHART, View.RUN_SUMMARY, View.OVERLAYS),
    VALIDATION_LOSS(View.LOSS_CHART, View.RUN_SUMMARY, View.OVERLAYS),
    /** A stage's weight average (val_ema/loss), beside its weights' validation loss. */
    EMA_VALIDATION_LOSS(View.LOSS_CHART),
    LEARNING_RATE(View.LR_CHART, View.OVERLAYS),
    THROUGHPUT(View.THROUGHPUT_CHART),
    /** Drawn as the ideal line next to the total throughput. */
    SCALING_EFFICIENCY(View.THROUGHPUT_CHART),
    /**
     * A diffusion model's projection error (its generated volumes' projections against the input views): a physics
     * loss, drawn per stage beside the training and validation losses.
     */
    PROJECTION_ERROR(View.LOSS_CHART, View.RUN_SUMMARY),
    /** The task's validation figures ({@link ValidationSeries} says each one's label and unit), the EMA's too. */
    TASK_METRIC(View.VALIDATION_CHART, View.RUN_SUMMARY, View.OVERLAYS),
    /** {@code layer/<node>/<figure>}: the Layers tab. */
    LAYER_FIGURE(View.LAYERS_TAB),
    STEPS_PER_EPOCH(View.STATUS_BAR),
    /** Written to the run's files (metrics.jsonl and .csv, TensorBoard), drawn nowhere in the window. */
    FILES_ONLY(),
    /** Telemetry ({@code TelemetryEvent}s, no run's): memory on the memory chart and in the Devices tab. */
    DEVICE_MEMORY(View.MEMORY_CHART, View.DEVICES_TAB),
    /** Telemetry shown as figures in the Devices tab ({@code traindeck devices --watch} prints every figure). */
    DEVICE_FIGURE(View.DEVICES_TAB);

    /** The window's places a metric can be shown. */
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
        OVERLAYS
    }

    private final Set<View> views;

    MetricRoute(View... views) {
        this.views = views.length == 0 ? EnumSet.noneOf(View.class) : EnumSet.of(views[0], views);
    }

    public Set<View> views() {
        return views;
    }

    private static final Map<String, MetricRoute> BY_NAME = new LinkedHashMap<>();
    private static final Map<String, MetricRoute> BY_PREFIX = new LinkedHashMap<>();

    static {
        BY_NAME.put(MetricNames.TRAIN_LOSS, TRAIN_LOSS);
        BY_NAME.put(MetricNames.VAL_LOSS, VALIDATION_LOSS);
        BY_NAME.put(MetricNames.VAL_EMA_LOSS, EMA_VALIDATION_LOSS);
        BY_NAME.put(MetricNames.LR, LEARNING_RATE);
        BY_NAME.put(MetricNames.THROUGHPUT, THROUGHPUT);
        BY_NAME.put(MetricNames.SCALING_EFFICIENCY, SCALING_EFFICIENCY);
        for (String task : ValidationSeries.metrics()) {
            BY_NAME.put(task, TASK_METRIC);
            BY_NAME.put(MetricNames.ofEma(task), TASK_METRIC);
        }
        BY_NAME.put(MetricNames.VAL_PROJECTION_ERROR, PROJECTION_ERROR);
        BY_NAME.put(MetricNames.STEPS_PER_EPOCH, STEPS_PER_EPOCH);
        for (String kept : new String[] {
            MetricNames.TRAIN_EPOCH_LOSS,
            MetricNames.GRAD_NORM,
            MetricNames.EPOCH_TIME,
            MetricNames.EPOCH_THROUGHPUT,
            MetricNames.WORKERS,
            MetricNames.GLOBAL_BATCH,
            MetricNames.ALLREDUCE_MS,
            // published by traindeck evaluate only, never during training
            MetricNames.VAL_TOP5_ACCURACY,
            MetricNames.VAL_R2,
        }) {
            BY_NAME.put(kept, FILES_ONLY);
        }
        BY_PREFIX.put(LayerMetrics.PREFIX, LAYER_FIGURE);
        // the summary's energy line comes from the run's result, not from these
        BY_PREFIX.put(MetricNames.ENERGY_PREFIX, FILES_ONLY);

        BY_NAME.put(TelemetryNames.CPU_PREFIX + TelemetryNames.HEAP_USED_MIB, DEVICE_MEMORY);
        BY_NAME.put(TelemetryNames.CPU_PREFIX + TelemetryNames.OFFHEAP_MIB, DEVICE_MEMORY);
        BY_NAME.put(TelemetryNames.CPU_PREFIX + TelemetryNames.MEMORY_USED_MIB, DEVICE_FIGURE);
        for (String figure : TelemetryNames.CPU_FIGURES) {
            BY_NAME.putIfAbsent(TelemetryNames.CPU_PREFIX + figure, DEVICE_FIGURE);
        }
    }

    /** The route of a metric or telemetry figure; a name the table does not hold is kept in the files only. */
    public static MetricRoute of(String name) {
        MetricRoute exact = BY_NAME.get(name);
        if (exact != null) {
            return exact;
        }
        if (name.startsWith(TelemetryNames.GPU_PREFIX)) {
            // gpu/<index>/<figure>
            return name.endsWith("/" + TelemetryNames.MEMORY_USED_MIB) ? DEVICE_MEMORY : DEVICE_FIGURE;
        }
        for (Map.Entry<String, MetricRoute> p : BY_PREFIX.entrySet()) {
            if (name.startsWith(p.getKey())) {
                return p.getValue();
            }
        }
        return FILES_ONLY;
    }

    /** Whether the table names this metric (by name or prefix): a new metric the engine publishes must be. */
    public static boolean isListed(String name) {
        return BY_NAME.containsKey(name)
                || name.startsWith(TelemetryNames.GPU_PREFIX)
                || BY_PREFIX.keySet().stream().anyMatch(name::startsWith);
    }
}
