package org.traindeck.engine.parallel;

/**
 * A tier that could not be set up or failed while running. {@code consistent}: the model is in a state between two
 * synchronized steps, so the next tier can go on from here; otherwise it must go back to the last snapshot.
 */
public class TierFailure extends RuntimeException {

    private final boolean consistent;

    public TierFailure(String message, boolean consistent, Throwable cause) {
        super(message, cause);
        this.consistent = consistent;
    }

    public boolean consistent() {
        return consistent;
    }
}
