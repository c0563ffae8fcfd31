package org.traindeck.engine.train.callback;

import java.util.Map;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.RunFailure;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * A policy around the training loop (validation, checkpoints, the non-finite policy, the watchdog, metric windows),
 * called by the trainer on the training thread at a few points of the run, as DJL's TrainingListener and Lightning's
 * callbacks are. Each hook may throw {@link RunFailure} to end the run, or {@link CheckpointStop} to stop it.
 */
public interface TrainingCallback {

    /** What an epoch produced: its duration and its epoch-level metrics (validation adds its own). */
    record EpochSummary(double seconds, Map<String, Double> metrics) {}

    /** A stage is about to train (its data loaded, its model and optimizer ready). */
    default void onStageStart(TrainingState state, StagePlan plan) {}

    /** A tier starts training the stage: at the stage's start, or after a fallback. */
    default void onTierStart(TrainingState state, StagePlan plan) {}

    /** The tier failed; the trainer goes on with the next one from the state as it now is. */
    default void onTierFailure(TrainingState state, StagePlan plan) {}

    default void onEpochStart(TrainingState state, StagePlan plan) {}

    /** A step finished and the state has been advanced past it. */
    default void onStep(TrainingState state, StagePlan plan, StepReport step) {}

    /** The epoch's steps are done: measure and validate (before EPOCH_FINISHED is published). */
    default void onEpochEnd(TrainingState state, StagePlan plan, EpochSummary summary) {}

    /** After EPOCH_FINISHED: save what should be saved. */
    default void afterEpoch(TrainingState state, StagePlan plan, EpochSummary summary) {}

    /** The user asked to stop; the run stops after this. */
    default void onStop(TrainingState state, StagePlan plan) {}
}
