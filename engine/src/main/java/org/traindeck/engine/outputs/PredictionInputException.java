package org.traindeck.engine.outputs;

/**
 * An input a model cannot take: the wrong shape or type, a character outside the vocabulary, an unreadable image. The
 * message names the input, where in it, and what the model expects.
 */
public class PredictionInputException extends RuntimeException {

    public PredictionInputException(String message) {
        super(message);
    }

    public PredictionInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
