package org.traindeck.app.run;

import java.awt.Color;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.Metric;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricRoute;
import org.traindeck.engine.events.MetricTable;
import org.traindeck.engine.events.TelemetryEvent;
import org.traindeck.engine.events.TelemetryNames;

/**
 * The dashboard's five charts and what each event draws on them: loss per stage (train solid, validation dashed, the
 * weight average's validation dashed and darker, a diffusion model's projection error solid and darker),
 * learning rate, memory per device, throughput (total, per device and the ideal), and validation accuracy or error;
 * stage boundaries, and the rewinds and resumes that cut curves back.
 */
final class RunCharts {

    private static final Color[] STAGE_COLORS = {
        new Color(0x1f77b4),
        new Color(0xd62728),
        new Color(0x2ca02c),
        new Color(0x9467bd),
        new Color(0xff7f0e),
        new Color(0x8c564b),
        new Color(0xe377c2),
        new Color(0x17becf)
    };

    final LiveChart loss = new LiveChart("Loss", "loss", false);
    final LiveChart lr = new LiveChart("Learning rate", "learning rate", false);
    final LiveChart memory = new LiveChart("Memory per device", "MiB", true);
    final LiveChart throughput = new LiveChart("Throughput", "samples/s", false);
    final LiveChart validation = new LiveChart("Validation", "metric", false);
    private double lastTotalThroughput;
    /** The unit of the validation metrics drawn for the run shown; null until its first validation. */
    private Metric.Unit shownUnit;
    /** Stages whose boundary is drawn: a resume announces its stage again, but it is the same boundary. */
    private final Set<Integer> markedStages = new HashSet<>();
    /** Where the memory chart's time axis starts: the run's own start once a run is on, else the window's. */
    private long memoryOriginMillis = System.currentTimeMillis();

    RunCharts() {
        loss.setId("chart-loss");
        lr.setId("chart-lr");
        memory.setId("chart-memory");
        throughput.setId("chart-throughput");
        validation.setId("chart-validation");
        lr.setEmptyHint("The learning rate of every step, with its schedule, appears here.");
        throughput.setEmptyHint("Samples per second, in total and per device, appear here.");
        validation.setEmptyHint(
                "The task's validation metric after each validation appears here: accuracy, pixel accuracy and mean IoU, PSNR, perplexity, or error for regression.");
    }

    List<LiveChart> all() {
        return List.of(loss, lr, memory, throughput, validation);
    }

    /** The charts that show one run (the memory chart shows the machine). */
    private List<LiveChart> runCharts() {
        return List.of(loss, lr, throughput, validation);
    }

    private static Color stageColor(int index) {
        return STAGE_COLORS[Math.floorMod(index, STAGE_COLORS.length)];
    }

    /** A metric of the run shown. */
    void metric(MetricEvent m) {
        double step = m.step();
        double t = m.elapsedSeconds();
        Metric metric = MetricTable.of(m.name());
        switch (metric.route()) {
            case TRAIN_LOSS ->
                loss.series("train/" + m.stageIndex(), "train · " + m.stage(), stageColor(m.stageIndex()), false)
                        .add(step, t, m.value());
            case VALIDATION_LOSS ->
                loss.series("val/" + m.stageIndex(), "val · " + m.stage(), stageColor(m.stageIndex()), true)
                        .add(step, t, m.value());
            // the weight average's curves beside the weights', in the stage's colour, darker
            case EMA_VALIDATION_LOSS ->
                loss.series(
                                "val_ema/" + m.stageIndex(),
                                "val EMA · " + m.stage(),
                                stageColor(m.stageIndex()).darker(),
                                true)
                        .add(step, t, m.value());
            // a physics loss beside the losses: the stage's colour, darker, solid
            case PROJECTION_ERROR ->
                loss.series(
                                "val_projection/" + m.stageIndex(),
                                "val " + metric.label() + " · " + m.stage(),
                                stageColor(m.stageIndex()).darker(),
                                false)
                        .add(step, t, m.value());
            case LEARNING_RATE ->
                lr.series("lr", "learning rate", stageColor(0), false).add(step, t, m.value());
            case THROUGHPUT -> {
                if (m.device() == null) {
                    lastTotalThroughput = m.value();
                    throughput
                            .series("total", "total", new Color(0x333333), false)
                            .add(step, t, m.value());
                } else {
                    Color c = throughput.hasSeries(m.device()) ? null : stageColor(throughput.seriesCount() - 1);
                    throughput.series(m.device(), m.device(), c, true).add(step, t, m.value());
                }
            }
            case SCALING_EFFICIENCY -> {
                // the ideal line (devices × one device alone) next to the total shows the scaling efficiency
                if (m.value() > 0 && lastTotalThroughput > 0) {
                    throughput
                            .series("ideal", "ideal: devices × one device", new Color(0x999999), true)
                            .add(step, t, lastTotalThroughput / m.value());
                }
            }
            case TASK_METRIC -> {
                if (metric.shows(MetricRoute.View.VALIDATION_CHART)) {
                    validation(metric, m);
                }
            }
            default -> {}
        }
    }

    /**
     * A task's validation metric. The chart holds one unit: the first the run publishes, unless a more telling one
     * follows (an autoencoder's PSNR after its MSE, which the loss chart already shows).
     */
    private void validation(Metric v, MetricEvent m) {
        if (shownUnit == null || shownUnit == Metric.Unit.ERROR && v.unit() != Metric.Unit.ERROR) {
            Metric.Unit dropped = shownUnit;
            if (dropped != null) {
                validation.removeSeries(key -> !RunOverlays.isOverlay(key) && isSeriesIn(dropped, key));
            }
            shownUnit = v.unit();
            validation.setYLabel(shownUnit.axisLabel());
        } else if (v.unit() != shownUnit) {
            return;
        }
        Color color = v.ema() ? stageColor(m.stageIndex()).darker() : stageColor(m.stageIndex());
        validation
                .series(v.seriesKey() + "/" + m.stageIndex(), v.label() + " · " + m.stage(), color, v.dashed())
                .add(m.step(), m.elapsedSeconds(), m.value());
    }

    /** Whether a curve of the validation chart (its key: metric/stage) is of a metric in this unit. */
    private static boolean isSeriesIn(Metric.Unit unit, String seriesKey) {
        String metricKey = seriesKey.substring(0, Math.max(0, seriesKey.lastIndexOf('/')));
        return MetricTable.all().stream()
                .anyMatch(t -> t.unit() == unit
                        && t.route() == MetricRoute.TASK_METRIC
                        && t.seriesKey().equals(metricKey));
    }

    /** A device figure: memory per device, on the time axis of the run shown. */
    void telemetry(TelemetryEvent f) {
        double t = (f.wallTimeMillis() - memoryOriginMillis) / 1000.0;
        if (t < 0) {
            return;
        }
        if (MetricTable.route(f.name()) != MetricRoute.DEVICE_MEMORY) {
            return;
        }
        if (f.name().startsWith(TelemetryNames.GPU_PREFIX)) {
            Color c = memory.hasSeries(f.device()) ? null : stageColor(memory.seriesCount());
            memory.series(f.device(), f.device() + " used", c, false).add(t, t, f.value());
        } else if (f.figureName().equals(TelemetryNames.HEAP_USED_MIB)) {
            memory.series("heap", "cpu · Java heap", new Color(0x555555), false).add(t, t, f.value());
        } else if (f.figureName().equals(TelemetryNames.OFFHEAP_MIB)) {
            memory.series("offheap", "cpu · outside the heap (ND4J, native)", new Color(0x2ca02c), false)
                    .add(t, t, f.value());
        }
    }

    /** Stage boundaries; a rewind or resume cuts the curves back to its step. */
    void lifecycle(LifecycleEvent l) {
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
            default -> {}
        }
    }

    /** Forgets the run shown; the memory chart and the runs overlaid for comparison stay. */
    void clearRun() {
        for (LiveChart c : runCharts()) {
            c.clearSeries(key -> !RunOverlays.isOverlay(key));
        }
        // the next run may be of another task, with metrics in another unit
        validation.removeSeries(key -> !RunOverlays.isOverlay(key));
        markedStages.clear();
        shownUnit = null;
    }

    private void truncateAfterStep(long step) {
        runCharts().forEach(c -> c.truncateAfterStep(step));
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
}
