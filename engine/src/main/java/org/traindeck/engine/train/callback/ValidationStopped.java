package org.traindeck.engine.train.callback;

/** Thrown out of a validation that a stop request cut short; the loop saves the last finished step and stops. */
public final class ValidationStopped extends RuntimeException {
    ValidationStopped() {
        super(null, null, false, false);
    }
}
