package org.traindeck.engine.train;

import java.util.HashMap;
import java.util.Locale;
import java.util.function.Function;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.callback.Callbacks;
import org.traindeck.engine.train.callback.TrainingCallback;
import org.traindeck.engine.train.callback.ValidationStopped;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.RunFailure;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;
import org.traindeck.engine.train.step.StepStrategy;

/**
 * One stage's epochs: each epoch's batch order, its steps through the tier's {@link StepStrategy} (a tier that fails
 * hands over to the next), every finished step to the callbacks, and the epoch's end (validation, checkpoints) to them
 * too. A stop asked for between two steps, or during validation, ends the run there with its checkpoint.
 */
final class StageEpochs {

    private final RunConfig config;
    private final int index;
    private final StageConfig stage;
    private final StagePlan plan;
    private final TrainingState state;
    private final RunEvents events;
    private final Callbacks callbacks;
    private final Function<TierFailure, StepStrategy> fallBack;
    private final int lossPositions;
    private final StepStrategy.StepListener listener = this::stepDone;
    private StepStrategy strategy;

    /**
     * @param strategy      the stage's first tier's steps
     * @param fallBack      the next tier's steps, after a tier failed
     * @param lossPositions the positions each example's loss is averaged over (a step reports it per position)
     */
    StageEpochs(
            RunConfig config,
            int index,
            StagePlan plan,
            TrainingState state,
            RunEvents events,
            Callbacks callbacks,
            StepStrategy strategy,
            Function<TierFailure, StepStrategy> fallBack,
            int lossPositions) {
        this.config = config;
        this.index = index;
        this.stage = config.stages().get(index);
        this.plan = plan;
        this.state = state;
        this.events = events;
        this.callbacks = callbacks;
        this.strategy = strategy;
        this.fallBack = fallBack;
        this.lossPositions = lossPositions;
    }

    /**
     * Trains epoch {@code epoch}; {@code continuing}: from the cursor and running loss a resume put in the state.
     * Returns the ending when the run stopped in it, null when the epoch finished.
     */
    Trainer.Ending train(int epoch, boolean continuing) {
        startEpoch(epoch, continuing);
        long started = System.nanoTime();
        Trainer.Ending stopped = trainSteps();
        if (stopped != null) {
            return stopped;
        }
        return endEpoch(epoch, (System.nanoTime() - started) / 1e9);
    }

    /** The epoch's batch order, a function of the seed, the stage and the epoch, so that a resume sees the same. */
    private void startEpoch(int epoch, boolean continuing) {
        int[] order = BatchMaker.epochOrder(
                plan.data.train().size(), config.dataFor(stage).shuffle(), config.seed(), index, epoch);
        if (continuing) {
            state.startEpoch(epoch, order, state.cursor, state.epochLossSum, state.epochExamples);
        } else {
            state.startEpoch(epoch, order, 0, 0, 0);
        }
        callbacks.onEpochStart(state, plan);
    }

    private Trainer.Ending trainSteps() {
        while (state.cursor < plan.batchesPerEpoch) {
            if (state.stopRequested) {
                return stop("");
            }
            if (state.globalStep + 1 == state.faults.stallAtStep()) {
                stall();
            }
            try {
                strategy.advance(state, plan, listener);
            } catch (TierFailure failure) {
                strategy = fallBack.apply(failure);
            }
        }
        return null;
    }

    /** A finished step: into the state, then to the callbacks (metrics, health, checkpoints every N steps). */
    private void stepDone(StepReport raw) {
        StepReport r = raw.perPosition(lossPositions);
        state.stepDone(r);
        callbacks.onStep(state, plan, r);
        state.faults.afterStep(r.step());
        if (r.step() == state.faults.stopAfterStep()) {
            state.stopRequested = true;
        }
    }

    /** The epoch's end: its callbacks (validation, the epoch's checkpoint), its lifecycle event, what reads them. */
    private Trainer.Ending endEpoch(int epoch, double seconds) {
        TrainingCallback.EpochSummary summary = new TrainingCallback.EpochSummary(seconds, new HashMap<>());
        try {
            callbacks.onEpochEnd(state, plan, summary);
        } catch (ValidationStopped cut) {
            // the checkpoint sits at the epoch's end before its validation, which the resume runs again
            return stop(" during validation");
        }
        events.lifecycle(
                LifecycleEvent.Kind.EPOCH_FINISHED,
                String.format(
                        Locale.ROOT,
                        "epoch %d/%d of \"%s\" in %.1f s",
                        epoch + 1,
                        stage.epochs(),
                        stage.name(),
                        summary.seconds()));
        callbacks.afterEpoch(state, plan, summary);
        return null;
    }

    /** Saves the stop checkpoint of the last finished step and ends the run there. */
    private Trainer.Ending stop(String where) {
        callbacks.onStop(state, plan);
        events.lifecycle(
                LifecycleEvent.Kind.RUN_STOPPED,
                "stopped by request" + where + " at step " + state.globalStep
                        + (state.lastCheckpoint != null ? "; resume from " + state.lastCheckpoint.getFileName() : ""));
        return new Trainer.Ending(RunResult.Status.STOPPED, "stopped at step " + state.globalStep);
    }

    /** The injected stall: a step that never finishes, until the watchdog gives the run up. */
    private void stall() {
        while (!state.abandoned) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new RunFailure("abandoned after the watchdog tripped");
    }
}
