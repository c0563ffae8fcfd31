package org.traindeck.engine.train;

/** Thrown out of the loop when a checkpoint could not be written and the policy says stop. */
final class CheckpointStop extends RuntimeException {
    CheckpointStop() {
        super(null, null, false, false);
    }
}
