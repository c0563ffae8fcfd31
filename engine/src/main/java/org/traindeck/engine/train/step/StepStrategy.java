package org.traindeck.engine.train.step;

import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * How steps are trained on the current tier: one device, TrainDeck's synchronous all-reduce, or ParallelWrapper's
 * rounds. The trainer walks the epochs; a strategy trains from the epoch's cursor and reports every step it finishes.
 */
public interface StepStrategy extends AutoCloseable {

    /** Receives each finished step, in order, on the training thread or (ParallelWrapper) a worker thread. */
    interface StepListener {
        void onStep(StepReport report);
    }

    /**
     * Trains at least one step from {@code state}'s cursor, at most to the end of the epoch or a stop request.
     *
     * @throws TierFailure when the tier cannot go on; {@code consistent()} says whether the model is between steps
     */
    void advance(TrainingState state, StagePlan plan, StepListener listener);

    @Override
    default void close() {}
}
