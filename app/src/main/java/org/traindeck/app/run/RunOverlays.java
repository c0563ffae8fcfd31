package org.traindeck.app.run;

import java.awt.Color;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.Metric;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricRoute;
import org.traindeck.engine.events.MetricTable;

/**
 * Other runs' curves on the dashboard's charts, next to the run shown (the live one included): training and
 * validation loss, the task's own validation metric (accuracy, mean IoU, PSNR, perplexity…) and learning rate, each
 * run in its own colour and named in the legend; what is overlaid is what {@link MetricTable} shows in overlays. A new
 * run on the dashboard leaves them; FX thread only.
 */
public final class RunOverlays {

    private static final String OVERLAY = "overlay:";

    private final LiveChart loss;
    private final LiveChart validation;
    private final LiveChart lr;
    private final List<LiveChart> all;

    RunOverlays(LiveChart loss, LiveChart validation, LiveChart lr, LiveChart throughput) {
        this.loss = loss;
        this.validation = validation;
        this.lr = lr;
        this.all = List.of(loss, validation, lr, throughput);
    }

    static boolean isOverlay(String seriesKey) {
        return seriesKey.startsWith(OVERLAY);
    }

    /**
     * Draws another run's curves next to the one shown (the live run included): training and validation loss,
     * validation accuracy and learning rate, in the run's own colour, named by the run. FX thread.
     */
    public void show(String run, List<EngineEvent> history, Color color) {
        String key = OVERLAY + run + ":";
        remove(run);
        String taskMetric = taskMetricOf(history);
        for (EngineEvent e : history) {
            if (!(e instanceof MetricEvent m) || m.device() != null) {
                continue;
            }
            Metric metric = MetricTable.of(m.name());
            if (!metric.shows(MetricRoute.View.OVERLAYS)) {
                continue;
            }
            switch (metric.route()) {
                case TRAIN_LOSS ->
                    loss.series(key + "train", run + " · train", color, false)
                            .add(m.step(), m.elapsedSeconds(), m.value());
                case VALIDATION_LOSS ->
                    loss.series(key + "val", run + " · val", color, true).add(m.step(), m.elapsedSeconds(), m.value());
                case TASK_METRIC -> {
                    // one curve a run: its task's own metric (a U-Net's IoU, a GPT's perplexity), named in the legend
                    if (m.name().equals(taskMetric)) {
                        validation
                                .series(key + m.name(), run + " · " + metric.label(), color, false)
                                .add(m.step(), m.elapsedSeconds(), m.value());
                    }
                }
                case LEARNING_RATE ->
                    lr.series(key + "lr", run, color, false).add(m.step(), m.elapsedSeconds(), m.value());
                default -> {}
            }
        }
    }

    /** The run's own task metric: the first of the table's task metrics it published, or null. */
    static String taskMetricOf(List<EngineEvent> history) {
        Set<String> published = new HashSet<>();
        for (EngineEvent e : history) {
            if (e instanceof MetricEvent m && m.device() == null) {
                published.add(m.name());
            }
        }
        return MetricTable.taskMetrics().stream()
                .map(Metric::name)
                .filter(published::contains)
                .findFirst()
                .orElse(null);
    }

    /** Takes one overlaid run off the charts. */
    public void remove(String run) {
        String key = OVERLAY + run + ":";
        for (LiveChart c : all) {
            c.removeSeries(k -> k.startsWith(key));
        }
    }

    /** Takes every overlaid run off the charts. */
    public void clear() {
        for (LiveChart c : all) {
            c.removeSeries(k -> k.startsWith(OVERLAY));
        }
    }
}
