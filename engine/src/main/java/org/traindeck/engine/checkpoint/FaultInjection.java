package org.traindeck.engine.checkpoint;

/**
 * Test switches, read from system properties (documented in the README under "Testing switches"): they make rare
 * failures happen on demand. All are off unless set.
 * <ul>
 *   <li>{@code traindeck.inject.nanAtStep=N}: the loss of global step N becomes NaN</li>
 *   <li>{@code traindeck.inject.checkpointWritePauseMs=M}: pause M ms between the entries of a checkpoint being
 *       written, widening the window in which a crash hits a half-written file</li>
 *   <li>{@code traindeck.inject.checkpointFullDiskFromStep=N}: writing a checkpoint at global step N or later fails
 *       halfway with "No space left on device", as on a full disk</li>
 * </ul>
 */
public final class FaultInjection {

    private FaultInjection() {
    }

    public static long nanAtStep() {
        return Long.getLong("traindeck.inject.nanAtStep", -1);
    }

    static void failIfDiskFull(long globalStep) throws java.io.IOException {
        long from = Long.getLong("traindeck.inject.checkpointFullDiskFromStep", -1);
        if (from >= 0 && globalStep >= from) {
            throw new java.io.IOException("No space left on device (injected)");
        }
    }

    static void pauseInCheckpointWrite() {
        long pause = Long.getLong("traindeck.inject.checkpointWritePauseMs", 0);
        if (pause > 0) {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
