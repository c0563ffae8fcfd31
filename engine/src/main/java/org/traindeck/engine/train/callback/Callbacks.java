package org.traindeck.engine.train.callback;

import java.util.List;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/** The run's callbacks, called in order (the watchdog first, so that it is paused before slow epoch-end work). */
public final class Callbacks implements TrainingCallback {

    private final List<TrainingCallback> all;

    public Callbacks(List<TrainingCallback> all) {
        this.all = List.copyOf(all);
    }

    @Override
    public void onStageStart(TrainingState state, StagePlan plan) {
        all.forEach(c -> c.onStageStart(state, plan));
    }

    @Override
    public void onTierStart(TrainingState state, StagePlan plan) {
        all.forEach(c -> c.onTierStart(state, plan));
    }

    @Override
    public void onTierFailure(TrainingState state, StagePlan plan) {
        all.forEach(c -> c.onTierFailure(state, plan));
    }

    @Override
    public void onEpochStart(TrainingState state, StagePlan plan) {
        all.forEach(c -> c.onEpochStart(state, plan));
    }

    @Override
    public void onStep(TrainingState state, StagePlan plan, StepReport step) {
        for (TrainingCallback c : all) {
            c.onStep(state, plan, step);
        }
    }

    @Override
    public void onEpochEnd(TrainingState state, StagePlan plan, EpochSummary summary) {
        all.forEach(c -> c.onEpochEnd(state, plan, summary));
    }

    @Override
    public void afterEpoch(TrainingState state, StagePlan plan, EpochSummary summary) {
        all.forEach(c -> c.afterEpoch(state, plan, summary));
    }

    @Override
    public void onStop(TrainingState state, StagePlan plan) {
        all.forEach(c -> c.onStop(state, plan));
    }
}
