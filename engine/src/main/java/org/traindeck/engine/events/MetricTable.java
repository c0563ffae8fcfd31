package org.traindeck.engine.events;

import static org.traindeck.engine.events.MetricRoute.View.EVENT_LOG;
import static org.traindeck.engine.events.MetricRoute.View.RUN_SUMMARY;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.traindeck.engine.events.Metric.Format;
import org.traindeck.engine.events.Metric.Unit;

/**
 * The one table of the metrics the engine publishes ({@link MetricNames} declares their names): for each, where it is
 * charted, how it is written, which way is better, and whether the summary, the overlays and the CLI's epoch line show
 * it. The window's charts, dashboard and overlays, the end-of-run summary, the Runs tab, the CLI, checkpoints and
 * sweeps read it; none of them spells a metric's name. A validation metric's weight-average twin ({@code val_ema/...})
 * is derived from it. Task metrics come in the order one is chosen as a run's own when it publishes several (a
 * segmentation's mean IoU before its pixel accuracy).
 */
public final class MetricTable {

    private static final List<Metric> METRICS = List.of(
            Metric.of(MetricNames.TRAIN_LOSS, MetricRoute.TRAIN_LOSS).labelled("train loss", ""),
            Metric.of(MetricNames.TRAIN_EPOCH_LOSS, MetricRoute.FILES_ONLY)
                    .labelled("loss", "loss")
                    .in(Unit.NONE, Format.of("%.4f"))
                    .alsoIn(MetricRoute.View.EPOCH_FIGURES),
            Metric.of(MetricNames.VAL_LOSS, MetricRoute.VALIDATION_LOSS)
                    .labelled("val loss", "val_loss")
                    .in(Unit.NONE, Format.of("%.4f")),
            Metric.of(MetricNames.VAL_EMA_LOSS, MetricRoute.EMA_VALIDATION_LOSS)
                    .labelled("val EMA loss", "val_ema_loss")
                    .in(Unit.NONE, Format.of("%.4f")),
            task(MetricNames.VAL_MEAN_IOU, "mean IoU", "val_mean_iou", Unit.FRACTION, Format.of("%.4f"))
                    .betterHigher()
                    .drawnDashed(),
            task(MetricNames.VAL_ACCURACY, "accuracy", "val_acc", Unit.FRACTION, Format.PERCENT)
                    .betterHigher()
                    .alsoIn(EVENT_LOG),
            task(MetricNames.VAL_PSNR, "PSNR", "val_psnr", Unit.DECIBEL, Format.of("%.2f dB"))
                    .betterHigher(),
            task(MetricNames.VAL_PERPLEXITY, "perplexity", "val_ppl", Unit.PERPLEXITY, Format.of("%.3f")),
            // the loss of a regression; the CLI shows it only beside an autoencoder's PSNR
            task(MetricNames.VAL_MSE, "MSE", "val_mse", Unit.ERROR, Format.of("%.5f"))
                    .notIn(RUN_SUMMARY),
            task(MetricNames.VAL_MAE, "MAE", "val_mae", Unit.ERROR, Format.of("%.4f"))
                    .notIn(RUN_SUMMARY)
                    .drawnDashed(),
            task(MetricNames.VAL_PIXEL_ACCURACY, "pixel accuracy", "val_pixel_acc", Unit.FRACTION, Format.of("%.4f"))
                    .betterHigher()
                    .notIn(RUN_SUMMARY),
            Metric.of(MetricNames.VAL_PROJECTION_ERROR, MetricRoute.PROJECTION_ERROR)
                    .labelled("projection error", "val_proj_err"),
            // published by traindeck evaluate only, never during training
            Metric.of(MetricNames.VAL_TOP5_ACCURACY, MetricRoute.FILES_ONLY)
                    .labelled("top-5 accuracy", "")
                    .in(Unit.FRACTION, Format.PERCENT)
                    .betterHigher(),
            Metric.of(MetricNames.VAL_R2, MetricRoute.FILES_ONLY)
                    .labelled("R²", "")
                    .in(Unit.NONE, Format.of("%.4f"))
                    .betterHigher(),
            Metric.of(MetricNames.VAL_ACCURACY_BY_STEP_PREFIX + "*", MetricRoute.FILES_ONLY)
                    .labelled("accuracy by step", "")
                    .in(Unit.FRACTION, Format.PERCENT)
                    .betterHigher(),
            Metric.of(MetricNames.LR, MetricRoute.LEARNING_RATE).labelled("learning rate", ""),
            Metric.of(MetricNames.THROUGHPUT, MetricRoute.THROUGHPUT)
                    .labelled("samples/s", "")
                    .in(Unit.NONE, Format.of("%.0f"))
                    .betterHigher(),
            // the epoch's figure: the last window's can be far off (a fast last step after slow ones)
            Metric.of(MetricNames.EPOCH_THROUGHPUT, MetricRoute.FILES_ONLY)
                    .labelled("samples/s", "samples/s")
                    .in(Unit.NONE, Format.of("%.0f"))
                    .betterHigher()
                    .alsoIn(MetricRoute.View.EPOCH_FIGURES),
            Metric.of(MetricNames.EPOCH_TIME, MetricRoute.FILES_ONLY)
                    .labelled("epoch time", "")
                    .in(Unit.NONE, Format.of("%.1fs"))
                    .alsoIn(MetricRoute.View.EPOCH_FIGURES),
            Metric.of(MetricNames.SCALING_EFFICIENCY, MetricRoute.SCALING_EFFICIENCY)
                    .betterHigher(),
            Metric.of(MetricNames.STEPS_PER_EPOCH, MetricRoute.STEPS_PER_EPOCH),
            Metric.of(MetricNames.GRAD_NORM, MetricRoute.FILES_ONLY),
            Metric.of(MetricNames.WORKERS, MetricRoute.FILES_ONLY),
            Metric.of(MetricNames.GLOBAL_BATCH, MetricRoute.FILES_ONLY),
            Metric.of(MetricNames.ALLREDUCE_MS, MetricRoute.FILES_ONLY),
            Metric.of(LayerMetrics.PREFIX + "*", MetricRoute.LAYER_FIGURE),
            // the summary's energy line comes from the run's result, not from these
            Metric.of(MetricNames.ENERGY_PREFIX + "*", MetricRoute.FILES_ONLY),
            Metric.of(TelemetryNames.CPU_PREFIX + TelemetryNames.HEAP_USED_MIB, MetricRoute.DEVICE_MEMORY),
            Metric.of(TelemetryNames.CPU_PREFIX + TelemetryNames.OFFHEAP_MIB, MetricRoute.DEVICE_MEMORY),
            Metric.of(TelemetryNames.CPU_PREFIX + "*", MetricRoute.DEVICE_FIGURE),
            Metric.of(TelemetryNames.GPU_PREFIX + "*/" + TelemetryNames.MEMORY_USED_MIB, MetricRoute.DEVICE_MEMORY),
            Metric.of(TelemetryNames.GPU_PREFIX + "*", MetricRoute.DEVICE_FIGURE));

    private static final Map<String, Metric> BY_NAME = new LinkedHashMap<>();

    static {
        for (Metric m : METRICS) {
            if (m.name().indexOf('*') >= 0) {
                continue;
            }
            BY_NAME.put(m.name(), m);
            if (m.route() == MetricRoute.TASK_METRIC) {
                Metric twin = m.emaTwin();
                BY_NAME.put(twin.name(), twin);
            }
        }
    }

    private MetricTable() {}

    private static Metric task(String name, String label, String brief, Unit unit, Format format) {
        return Metric.of(name, MetricRoute.TASK_METRIC).labelled(label, brief).in(unit, format);
    }

    /** Every metric and pattern of the table in its order, each weight-average twin after its metric. */
    public static List<Metric> all() {
        List<Metric> all = new ArrayList<>(BY_NAME.values());
        METRICS.stream().filter(m -> m.name().indexOf('*') >= 0).forEach(all::add);
        return List.copyOf(all);
    }

    /** The table's entry for a metric or telemetry figure, if it has one. */
    public static Optional<Metric> find(String name) {
        Metric exact = BY_NAME.get(name);
        if (exact != null) {
            return Optional.of(exact);
        }
        return METRICS.stream().filter(m -> m.matches(name)).findFirst();
    }

    /** A metric's entry; a name the table does not hold is kept in the run's files only and shown nowhere. */
    public static Metric of(String name) {
        return find(name).orElseGet(() -> Metric.of(name, MetricRoute.FILES_ONLY));
    }

    public static MetricRoute route(String name) {
        return of(name).route();
    }

    /** Whether the table names this metric (by name or pattern): a new metric the engine publishes must be. */
    public static boolean isListed(String name) {
        return find(name).isPresent();
    }

    /** The epoch-level figures (the CLI's epoch line, train.log, traindeck compare), in the table's order. */
    public static List<Metric> epochFigures() {
        return all().stream()
                .filter(m -> m.shows(MetricRoute.View.EPOCH_FIGURES))
                .toList();
    }

    /** The task metrics (not their weight averages'), in the order one is chosen as a run's own. */
    public static List<Metric> taskMetrics() {
        return METRICS.stream()
                .filter(m -> m.route() == MetricRoute.TASK_METRIC)
                .toList();
    }
}
