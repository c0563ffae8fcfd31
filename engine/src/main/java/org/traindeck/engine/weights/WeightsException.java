package org.traindeck.engine.weights;

/**
 * Starting weights that cannot be used: the file is missing, damaged or hostile (its message names the file and the
 * byte offset), or its tensors do not fit the model (naming the tensor and both shapes).
 */
public class WeightsException extends RuntimeException {

    public WeightsException(String message) {
        super(message);
    }

    public WeightsException(String message, Throwable cause) {
        super(message, cause);
    }
}
