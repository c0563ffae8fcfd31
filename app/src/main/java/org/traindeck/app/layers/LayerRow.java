package org.traindeck.app.layers;

import java.util.Arrays;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LayerMetrics.Figure;

/** One layer as the view shows it: its latest figures, its latest histograms and the warning about it, if any. */
public final class LayerRow {

    private final String node;
    private final int index;
    private final double[] latest = new double[Figure.values().length];
    private final boolean[] known = new boolean[Figure.values().length];
    private long step = -1;
    private String warning;
    private HistogramEvent weights;
    private HistogramEvent gradients;

    LayerRow(String node, int index) {
        this.node = node;
        this.index = index;
        Arrays.fill(latest, Double.NaN);
    }

    /** The graph node's name. */
    public String node() {
        return node;
    }

    /** Its place in the heat map: the order in which the run first reported it (the graph's order). */
    public int index() {
        return index;
    }

    /** The latest value of {@code figure}, NaN when none came yet (see {@link #has}). */
    public double value(Figure figure) {
        return latest[figure.ordinal()];
    }

    public boolean has(Figure figure) {
        return known[figure.ordinal()];
    }

    /** The step of the latest figure, -1 before any. */
    public long step() {
        return step;
    }

    /** The latest warning naming this layer, null for none. */
    public String warning() {
        return warning;
    }

    /** The latest histogram of the weights, null before the first. */
    public HistogramEvent weights() {
        return weights;
    }

    public HistogramEvent gradients() {
        return gradients;
    }

    void figure(Figure figure, long at, double value) {
        latest[figure.ordinal()] = value;
        known[figure.ordinal()] = true;
        step = Math.max(step, at);
    }

    void warning(String message) {
        warning = message;
    }

    /** Keeps the histogram if it is the latest of its quantity; ignores quantities the view does not show. */
    void histogram(HistogramEvent h) {
        if (HistogramEvent.WEIGHTS.equals(h.quantity())) {
            if (weights == null || h.step() >= weights.step()) {
                weights = h;
            }
        } else if (HistogramEvent.GRADIENTS.equals(h.quantity())) {
            if (gradients == null || h.step() >= gradients.step()) {
                gradients = h;
            }
        }
    }

    /** Forgets what came after {@code at} (the figures stay: the next step's replace them). */
    void truncateAfterStep(long at) {
        if (weights != null && weights.step() > at) {
            weights = null;
        }
        if (gradients != null && gradients.step() > at) {
            gradients = null;
        }
    }
}
