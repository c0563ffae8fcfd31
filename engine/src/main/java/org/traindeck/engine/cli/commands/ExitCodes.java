package org.traindeck.engine.cli.commands;

/**
 * What {@code traindeck} exits with: 0 success (finished, or stopped with a checkpoint), 1 the run failed, 2 invalid
 * input (bad arguments, a config with errors, unreadable data, a run folder in use), 3 finished but some files could
 * not be written (a full disk); 130 / 143 (Ctrl-C / SIGTERM after saving a checkpoint) are the JVM's own.
 */
public final class ExitCodes {

    public static final int OK = 0;
    public static final int RUN_FAILED = 1;
    public static final int INVALID_INPUT = 2;
    /** Trained to the end, but a metric file, the run log or a checkpoint could not be written. */
    public static final int FILES_INCOMPLETE = 3;

    private ExitCodes() {}
}
