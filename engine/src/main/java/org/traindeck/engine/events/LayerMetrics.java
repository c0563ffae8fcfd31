package org.traindeck.engine.events;

import java.util.Optional;

/**
 * Names of the per-layer figures, {@code layer/<node>/<figure>}. They travel as ordinary {@link MetricEvent}s, so
 * every sink writes them; a node name may itself contain '/', so the figure is what follows the last one.
 */
public final class LayerMetrics {

    public static final String PREFIX = "layer/";

    /** The figures published for every node with parameters, and for activations of every node. */
    public enum Figure {
        /** L2 norm of the node's parameters. */
        PARAM_NORM("param_norm"),
        /** L2 norm of the node's all-reduced gradient: the same for any device count. */
        GRAD_NORM("grad_norm"),
        /** L2 norm of the optimizer's update divided by the parameters' norm. */
        UPDATE_RATIO("update_ratio"),
        /** Mean of the node's output activations over the logged batch. */
        ACT_MEAN("act_mean"),
        /** Standard deviation of the node's output activations. */
        ACT_STD("act_std"),
        /** Fraction of the node's outputs that are exactly zero (dead ReLU-like units). */
        ACT_ZERO_FRACTION("act_zero_fraction");

        private final String suffix;

        Figure(String suffix) {
            this.suffix = suffix;
        }

        public String suffix() {
            return suffix;
        }
    }

    /** A node and one of its figures, parsed back from a metric name. */
    public record LayerFigure(String node, Figure figure) {}

    private LayerMetrics() {}

    public static String name(String node, Figure figure) {
        return PREFIX + node + "/" + figure.suffix();
    }

    public static boolean isLayerMetric(String metricName) {
        return metricName.startsWith(PREFIX);
    }

    /** The node and figure a metric name holds, or empty when it is not a per-layer figure. */
    public static Optional<LayerFigure> parse(String metricName) {
        if (!isLayerMetric(metricName)) {
            return Optional.empty();
        }
        int slash = metricName.lastIndexOf('/');
        if (slash <= PREFIX.length()) {
            return Optional.empty();
        }
        String suffix = metricName.substring(slash + 1);
        for (Figure f : Figure.values()) {
            if (f.suffix.equals(suffix)) {
                return Optional.of(new LayerFigure(metricName.substring(PREFIX.length(), slash), f));
            }
        }
        return Optional.empty();
    }
}
