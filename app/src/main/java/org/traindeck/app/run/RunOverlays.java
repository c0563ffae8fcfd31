package org.traindeck.app.run;

import java.awt.Color;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/**
 * Other runs' curves on the dashboard's charts, next to the run shown (the live one included): training and
 * validation loss, the task's own validation metric (accuracy, mean IoU, PSNR, perplexity…) and learning rate, each run in its own colour and named in the legend. A new
 * run on the dashboard leaves them; FX thread only.
 */
public final class RunOverlays {

    private static final String OVERLAY = "overlay:";

    /**
     * Each task's own validation metric, in the order one is chosen when a run publishes several (a segmentation's
     * mean IoU before its pixel accuracy), with the words its legend uses.
     */
    private static final Map<String, String> TASK_METRICS = orderedLabels(
            MetricNames.VAL_MEAN_IOU, "mean IoU",
            MetricNames.VAL_ACCURACY, "accuracy",
            MetricNames.VAL_PSNR, "PSNR (dB)",
            MetricNames.VAL_PERPLEXITY, "perplexity",
            MetricNames.VAL_R2, "R²",
            MetricNames.VAL_MSE, "MSE",
            MetricNames.VAL_MAE, "MAE",
            MetricNames.VAL_PIXEL_ACCURACY, "pixel accuracy");

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
            switch (MetricRoute.of(m.name())) {
                case TRAIN_LOSS ->
                    loss.series(key + "train", run + " · train", color, false)
                            .add(m.step(), m.elapsedSeconds(), m.value());
                case VALIDATION_LOSS ->
                    loss.series(key + "val", run + " · val", color, true).add(m.step(), m.elapsedSeconds(), m.value());
                case TASK_METRIC -> {
                    // one curve a run: its task's own metric (a U-Net's IoU, a GPT's perplexity), named in the legend
                    if (m.name().equals(taskMetric)) {
                        validation
                                .series(key + m.name(), run + " · " + TASK_METRICS.get(m.name()), color, false)
                                .add(m.step(), m.elapsedSeconds(), m.value());
                    }
                }
                case LEARNING_RATE ->
                    lr.series(key + "lr", run, color, false).add(m.step(), m.elapsedSeconds(), m.value());
                default -> {}
            }
        }
    }

    /** The run's own task metric: the first of {@link #TASK_METRICS} it published, or null. */
    static String taskMetricOf(List<EngineEvent> history) {
        Set<String> published = new HashSet<>();
        for (EngineEvent e : history) {
            if (e instanceof MetricEvent m && m.device() == null) {
                published.add(m.name());
            }
        }
        return TASK_METRICS.keySet().stream()
                .filter(published::contains)
                .findFirst()
                .orElse(null);
    }

    private static Map<String, String> orderedLabels(String... nameThenLabel) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < nameThenLabel.length; i += 2) {
            out.put(nameThenLabel[i], nameThenLabel[i + 1]);
        }
        return out;
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
