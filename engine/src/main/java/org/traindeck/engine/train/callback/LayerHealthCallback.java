package org.traindeck.engine.train.callback;

import org.traindeck.engine.config.LayerHealthConfig;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.health.LayerFigures;
import org.traindeck.engine.train.health.LayerHistogram;
import org.traindeck.engine.train.health.LayerSnapshot;
import org.traindeck.engine.train.health.LayerWarnings;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Publishes what the logged steps measured inside the model: the per-layer figures as metrics
 * ({@code layer/<node>/<figure>}), the histograms as histogram events, and a warning with advice, once per layer and
 * condition, when a layer learns too fast, too slowly, dies, or gradients vanish or explode along the depth.
 */
public final class LayerHealthCallback implements TrainingCallback {

    private final RunEvents events;
    private final LayerWarnings warnings;

    public LayerHealthCallback(RunEvents events, LayerHealthConfig config) {
        this.events = events;
        this.warnings = new LayerWarnings(config);
    }

    @Override
    public void onStep(TrainingState state, StagePlan plan, StepReport step) {
        LayerSnapshot seen = step.layers();
        if (seen == null) {
            return;
        }
        for (LayerFigures f : seen.figures()) {
            publish(f.node(), LayerMetrics.Figure.PARAM_NORM, f.paramNorm());
            publish(f.node(), LayerMetrics.Figure.GRAD_NORM, f.gradNorm());
            publish(f.node(), LayerMetrics.Figure.UPDATE_RATIO, f.updateRatio());
            publish(f.node(), LayerMetrics.Figure.ACT_MEAN, f.actMean());
            publish(f.node(), LayerMetrics.Figure.ACT_STD, f.actStd());
            publish(f.node(), LayerMetrics.Figure.ACT_ZERO_FRACTION, f.actZeroFraction());
        }
        for (LayerHistogram h : seen.histograms()) {
            events.histogram(h.node(), h.quantity(), h.data());
        }
        if (!seen.figures().isEmpty()) {
            for (String warning : warnings.check(seen.figures())) {
                events.lifecycle(LifecycleEvent.Kind.WARNING, warning);
            }
        }
    }

    private void publish(String node, LayerMetrics.Figure figure, double value) {
        // a figure the step did not take (a node without parameters has no gradient) is left out, not written as NaN
        if (!Double.isNaN(value)) {
            events.metric(LayerMetrics.name(node, figure), value, null);
        }
    }
}
