package org.traindeck.engine.train;

import java.nio.file.Path;
import java.util.Map;

/**
 * How a run ended, where its files are, the last value of each epoch-level metric, and the newest checkpoint written
 * (null when none was).
 */
public record RunResult(Status status, String message, Path runDir, long steps, double elapsedSeconds,
                        Map<String, Double> lastMetrics, Path lastCheckpoint) {

    public enum Status { FINISHED, STOPPED, FAILED }

    public RunResult {
        lastMetrics = Map.copyOf(lastMetrics);
    }

    public boolean succeeded() {
        return status != Status.FAILED;
    }
}
