package org.traindeck.engine.train;

import org.traindeck.engine.checkpoint.CheckpointWriteHook;
import org.traindeck.engine.train.state.TrainingFaults;

/**
 * What a test can make a run fail at: the training loop's faults and its checkpoint writes. A run hands each part to
 * its one seam (the trainer, the checkpoint writer); production runs use {@link #NONE}.
 */
public interface RunFaults extends TrainingFaults, CheckpointWriteHook {

    /** Nothing happens. */
    RunFaults NONE = new RunFaults() {};
}
