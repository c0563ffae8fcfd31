package org.traindeck.engine.train.callback;

/** Thrown out of the loop when a checkpoint could not be written and the policy says stop. */
public final class CheckpointStop extends RuntimeException {
    CheckpointStop() {
        super(null, null, false, false);
    }
}
