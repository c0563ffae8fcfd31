package org.traindeck.app.run;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.traindeck.engine.events.MetricNames;

/**
 * The validation metrics the dashboard draws, each task's own: accuracy for classification, pixel accuracy and mean IoU
 * for segmentation, PSNR for reconstruction, perplexity for sequences, MSE and MAE for regression. One chart holds one
 * unit, so each metric belongs to a unit.
 */
record ValidationSeries(String key, String label, Unit unit, boolean dashed) {

    /** What a metric's values are; an error is drawn only when the run publishes nothing more telling. */
    enum Unit {
        FRACTION("fraction"),
        DECIBEL("dB"),
        PERPLEXITY("perplexity"),
        ERROR("error");

        final String axisLabel;

        Unit(String axisLabel) {
            this.axisLabel = axisLabel;
        }
    }

    private static final String EMA_KEY = "ema_";

    private static final Map<String, ValidationSeries> BY_METRIC = Map.of(
            MetricNames.VAL_ACCURACY, new ValidationSeries("acc", "accuracy", Unit.FRACTION, false),
            MetricNames.VAL_PIXEL_ACCURACY,
                    new ValidationSeries("pixel_accuracy", "pixel accuracy", Unit.FRACTION, false),
            MetricNames.VAL_MEAN_IOU, new ValidationSeries("mean_iou", "mean IoU", Unit.FRACTION, true),
            MetricNames.VAL_PSNR, new ValidationSeries("psnr", "PSNR", Unit.DECIBEL, false),
            MetricNames.VAL_PERPLEXITY, new ValidationSeries("perplexity", "perplexity", Unit.PERPLEXITY, false),
            MetricNames.VAL_MSE, new ValidationSeries("mse", "mse", Unit.ERROR, false),
            MetricNames.VAL_MAE, new ValidationSeries("mae", "mae", Unit.ERROR, true));

    /** The task metrics drawn (not their weight average's names). */
    static Set<String> metrics() {
        return BY_METRIC.keySet();
    }

    /** The series of a validation metric; a weight average's (val_ema/...) is its own series beside the weights'. */
    static Optional<ValidationSeries> of(String metricName) {
        if (metricName.startsWith(MetricNames.VAL_EMA_PREFIX)) {
            return Optional.ofNullable(BY_METRIC.get(MetricNames.withoutEma(metricName)))
                    .map(v -> new ValidationSeries(EMA_KEY + v.key, v.label + " (EMA)", v.unit, v.dashed));
        }
        return Optional.ofNullable(BY_METRIC.get(metricName));
    }

    boolean ofEma() {
        return key.startsWith(EMA_KEY);
    }

    /** Whether a chart showing {@code shown} should switch to this metric's unit. */
    boolean replaces(Unit shown) {
        return shown == Unit.ERROR && unit != Unit.ERROR;
    }

    static boolean isKeyOf(Unit unit, String seriesKey) {
        String key = seriesKey.startsWith(EMA_KEY) ? seriesKey.substring(EMA_KEY.length()) : seriesKey;
        return BY_METRIC.values().stream().anyMatch(v -> v.unit == unit && key.startsWith(v.key + "/"));
    }
}
