package org.traindeck.engine.api;

import java.io.IOException;

/** The run folder is being written by another TrainDeck process (a run, or a resume of it), so it was not touched. */
public final class RunBusyException extends IOException {

    public RunBusyException(String message, Throwable cause) {
        super(message, cause);
    }
}
