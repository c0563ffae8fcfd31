package org.traindeck.engine.train.state;

import org.traindeck.engine.parallel.Tier;

/**
 * The seam for making the training loop fail on demand, for tests; production runs use {@link #NONE}. The trainer
 * puts it in the {@link TrainingState} it shares with the tier chain and the step strategies, and each fault is made
 * where it would really happen (a worker's failure inside the step, on that worker's thread). A step number of -1
 * means never.
 */
public interface TrainingFaults {

    /** Nothing happens. */
    TrainingFaults NONE = new TrainingFaults() {};

    /** The tier fails while being set up. */
    default boolean failsTier(Tier tier) {
        return false;
    }

    /** A worker fails while computing this global step, in the middle of it. */
    default long failWorkerAtStep() {
        return -1;
    }

    /** Parameter averaging fails between two rounds when it reaches this batch of an epoch. */
    default long failRoundAtBatch() {
        return -1;
    }

    /** This global step never finishes (for the watchdog). */
    default long stallAtStep() {
        return -1;
    }

    /** The loss and gradient of this global step become NaN. */
    default long nanAtStep() {
        return -1;
    }

    /** The run is asked to stop right after this global step, as a user's Stop would. */
    default long stopAfterStep() {
        return -1;
    }

    /** Each validation batch takes this many milliseconds longer (a long validation, for a signal to land in). */
    default long validationBatchPauseMs() {
        return 0;
    }

    /**
     * Called on the training thread after each global step: a test's stand-in for the world changing while a run
     * trains (a device's energy counter moving, a thread to count), which a listener, told later on its own thread,
     * cannot time.
     */
    default void afterStep(long globalStep) {}
}
