package org.traindeck.engine.train.callback;

import java.util.Locale;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.RunFailure;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * What happens when a step's loss or gradient is not a finite number (the step was not applied): stop the run with
 * advice ({@code onNonFinite: "stop"}), or skip the batch with a warning, up to a limit of consecutive skips.
 */
public final class NonFinitePolicy implements TrainingCallback {

    static final int MAX_CONSECUTIVE_SKIPS = 20;

    private final RunEvents events;
    private final boolean skip;
    private int consecutiveSkips;

    public NonFinitePolicy(RunEvents events, boolean skip) {
        this.events = events;
        this.skip = skip;
    }

    @Override
    public void onStep(TrainingState state, StagePlan plan, StepReport r) {
        if (r.applied()) {
            consecutiveSkips = 0;
            return;
        }
        events.metric(MetricNames.TRAIN_LOSS, r.loss(), null);
        String what = String.format(
                Locale.ROOT,
                "the loss became %s at step %d (stage \"%s\", epoch %d, learning rate %.3g)",
                Double.isFinite(r.loss()) ? "finite but the gradient " + r.gradNorm() : String.valueOf(r.loss()),
                r.step(),
                plan.stage.name(),
                state.epoch + 1,
                r.lr());
        String advice = "Try a lower learning rate, gradient clipping (\"gradientClipping\": 1.0), "
                + "or check the data for extreme or missing values";
        if (!skip) {
            throw new RunFailure(what + ": training diverged and was stopped before the update. " + advice);
        }
        if (++consecutiveSkips > MAX_CONSECUTIVE_SKIPS) {
            throw new RunFailure(what + ", and the " + MAX_CONSECUTIVE_SKIPS + " steps before it were skipped too: "
                    + "training diverged. " + advice);
        }
        events.lifecycle(LifecycleEvent.Kind.WARNING, what + ": batch skipped (onNonFinite: skip)");
    }
}
