package org.traindeck.engine.checkpoint;

/** A checkpoint that cannot be written, read or used, with the reason worded for the user. */
public class CheckpointException extends Exception {

    public CheckpointException(String message) {
        super(message);
    }

    public CheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
