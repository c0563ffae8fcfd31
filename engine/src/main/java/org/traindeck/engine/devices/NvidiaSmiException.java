package org.traindeck.engine.devices;

/** nvidia-smi is missing, failed or hung; the message is the reason, worded for the user. */
public class NvidiaSmiException extends Exception {

    public NvidiaSmiException(String message) {
        super(message);
    }

    public NvidiaSmiException(String message, Throwable cause) {
        super(message, cause);
    }
}
