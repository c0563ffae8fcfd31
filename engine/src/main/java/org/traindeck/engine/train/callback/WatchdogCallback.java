package org.traindeck.engine.train.callback;

import org.traindeck.engine.parallel.Watchdog;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Keeps the step watchdog informed: it runs while steps are trained (each finished step resets it) and is paused
 * while the run loads data, validates or writes checkpoints, which may take longer than a step.
 */
public final class WatchdogCallback implements TrainingCallback {

    private final Watchdog watchdog;

    public WatchdogCallback(Watchdog watchdog) {
        this.watchdog = watchdog;
    }

    @Override
    public void onStageStart(TrainingState state, StagePlan plan) {
        watchdog.pause(true);
    }

    @Override
    public void onTierStart(TrainingState state, StagePlan plan) {
        watchdog.context(plan.describeTier() + " (stage \"" + plan.stage.name() + "\", step " + state.globalStep + ")");
    }

    @Override
    public void onEpochStart(TrainingState state, StagePlan plan) {
        watchdog.pause(false);
    }

    @Override
    public void onStep(TrainingState state, StagePlan plan, StepReport step) {
        watchdog.touch();
    }

    @Override
    public void onEpochEnd(TrainingState state, StagePlan plan, EpochSummary summary) {
        watchdog.pause(true);
    }
}
