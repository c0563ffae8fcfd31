package org.traindeck.engine.train.callback;

import java.util.Map;
import java.util.function.Supplier;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.RunFailure;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Evaluates the validation set every {@code validationInterval} epochs and at each stage's last epoch, publishes the
 * metrics, and stops a run whose validation loss is no longer a number (it diverged).
 */
public final class ValidationCallback implements TrainingCallback {

    private final RunEvents events;
    private final Supplier<ComputationGraph> net;

    public ValidationCallback(RunEvents events, Supplier<ComputationGraph> net) {
        this.events = events;
        this.net = net;
    }

    @Override
    public void onEpochEnd(TrainingState state, StagePlan plan, EpochSummary summary) {
        if (!isDue(state, plan)) {
            return;
        }
        // written at once: a long validation shows in train.log while it runs
        events.logLine("validating after epoch " + (state.epoch + 1) + " of \"" + plan.stage.name() + "\" (step "
                + state.globalStep + "): " + plan.data.validation().size() + " samples");
        Map<String, Double> metrics =
                Evaluator.evaluate(net.get(), plan.data.validation(), plan.images, plan.dataType, state);
        metrics.forEach((name, value) -> events.metric(name, value, null));
        summary.metrics().putAll(metrics);
        Double loss = metrics.get(MetricNames.VAL_LOSS);
        if (loss != null && !Double.isFinite(loss)) {
            throw new RunFailure("the validation loss is " + loss + " after epoch " + (state.epoch + 1) + " of stage \""
                    + plan.stage.name() + "\": the model diverged. Try a lower learning rate or gradient clipping");
        }
    }

    /** Whether this epoch's end validates: every validationInterval epochs and the stage's last, when there is data. */
    static boolean isDue(TrainingState state, StagePlan plan) {
        int interval = plan.stage.validationInterval();
        boolean lastEpoch = state.epoch == plan.stage.epochs() - 1;
        return plan.data.validation() != null && interval > 0 && ((state.epoch + 1) % interval == 0 || lastEpoch);
    }
}
