package org.traindeck.engine.train.state;

/** A run that cannot go on, with a message written for the user (what happened and what to try). */
public class RunFailure extends RuntimeException {

    public RunFailure(String message) {
        super(message);
    }

    public RunFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
