package org.traindeck.engine.api.runs;

import java.nio.file.Path;
import java.util.Map;
import org.traindeck.engine.checkpoint.CheckpointStore;

/**
 * How a run ended, where its files are, the last value of each epoch-level metric, and the newest checkpoint written
 * (null when none was).
 */
public record RunResult(
        Status status,
        String message,
        Path runDir,
        long steps,
        double elapsedSeconds,
        Map<String, Double> lastMetrics,
        Path lastCheckpoint) {

    /**
     * INCOMPLETE: trained to the end, but a metric file, the run log or a checkpoint could not be written (a full
     * disk, say): the message says which.
     */
    public enum Status {
        FINISHED,
        INCOMPLETE,
        STOPPED,
        FAILED
    }

    public RunResult {
        lastMetrics = Map.copyOf(lastMetrics);
    }

    public boolean succeeded() {
        return status != Status.FAILED;
    }

    /** Whether the newest checkpoint is the last finished step's, as a stop writes it. */
    public boolean checkpointedLastStep() {
        return lastCheckpoint != null
                && lastCheckpoint.getFileName().toString().equals(CheckpointStore.regularFileName(steps));
    }
}
