package org.traindeck.engine.train.health;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.config.LayerHealthConfig;

/**
 * Decides which steps look inside the model, and gathers what they saw: a {@link LayerProbe} for the optimizer step,
 * then the activations of the logged batch. Off (every interval 0), it is never asked for anything and costs nothing.
 */
public final class LayerWatch {

    public static final LayerWatch OFF = new LayerWatch(LayerHealthConfig.OFF);

    private final LayerHealthConfig config;
    private ComputationGraph known;
    private LayerNodes nodes;
    /** The global step after a stage's last step: looked into whatever the intervals, so a short run shows its layers. */
    private volatile long stageEnd = -1;

    public LayerWatch(LayerHealthConfig config) {
        this.config = config;
    }

    public LayerHealthConfig config() {
        return config;
    }

    /** The global step after the current stage's last step. */
    public void stageEndsAt(long step) {
        stageEnd = step;
    }

    private boolean figuresAt(long step) {
        return config.figuresAt(step) || config.figuresOn() && step == stageEnd;
    }

    private boolean histogramsAt(long step) {
        return config.histogramsAt(step) || config.histogramsOn() && step == stageEnd;
    }

    /** A probe for the step after which the global step is {@code step}, or null when that step is not looked into. */
    public LayerProbe probeFor(ComputationGraph net, long step) {
        boolean figures = figuresAt(step);
        boolean histograms = histogramsAt(step);
        if (!figures && !histograms) {
            return null;
        }
        return new LayerProbe(net, nodes(net), histograms);
    }

    /**
     * What the step saw, activations of {@code features} (the start of the logged batch's inputs) included, or null
     * when the probe was not used or the step was not applied.
     */
    public LayerSnapshot finish(
            LayerProbe probe, boolean applied, ComputationGraph net, INDArray[] features, long step) {
        return finish(
                probe,
                applied,
                features == null
                        ? nodes -> Map.of()
                        : nodes -> ActivationProbe.moments(net, features, nodes, ActivationProbe.MAX_EXAMPLES),
                step);
    }

    /**
     * As {@link #finish(LayerProbe, boolean, ComputationGraph, INDArray[], long)}, the activation statistics from
     * {@code activations}: given the nodes, their moments (several workers' parts merged, or none).
     */
    public LayerSnapshot finish(
            LayerProbe probe,
            boolean applied,
            Function<List<String>, Map<String, ActivationProbe.Moments>> activations,
            long step) {
        if (probe == null || !applied) {
            return null;
        }
        List<LayerFigures> figures = List.of();
        if (figuresAt(step)) {
            figures = probe.figures();
            figures = ActivationProbe.withMoments(figures, activations.apply(ActivationProbe.nodes(figures)));
        }
        return new LayerSnapshot(figures, probe.histograms());
    }

    private synchronized LayerNodes nodes(ComputationGraph net) {
        if (net != known) {
            nodes = LayerNodes.of(net);
            known = net;
        }
        return nodes;
    }
}
