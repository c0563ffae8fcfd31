package org.traindeck.engine.train;

/**
 * ND4J's native backend cannot start in this process (no NVIDIA driver for the CUDA build, natives missing for this
 * platform): nothing can train here until the machine or the build changes, so it is the user's to mend, not a bug.
 */
public final class NativeBackendException extends RuntimeException {

    public NativeBackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
