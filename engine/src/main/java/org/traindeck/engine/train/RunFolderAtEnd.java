package org.traindeck.engine.train;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointStore;

/** What a run's end reads from its folder (the checkpoint a resume would take) and does to it (a failed start's removal). */
final class RunFolderAtEnd {

    private RunFolderAtEnd() {}

    /** The newest complete checkpoint a resume would take (a write in progress is no checkpoint yet), or null. */
    static Checkpoint.Listed newestCheckpoint(Path runDir) {
        try {
            return new CheckpointStore(runDir)
                    .list().stream()
                            .filter(l -> l.isValid()
                                    && l.foreign() == null
                                    && l.file().getFileName().toString().startsWith("step-"))
                            .max(Comparator.comparingLong(l -> l.checkpoint().globalStep()))
                            .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * A new run that failed before its first step (unreadable data, say) leaves nothing behind: its folder held only
     * what this start created, so it is removed rather than left as an empty run among the user's runs.
     */
    static RunResult removeFailedStart(Path runDir, RunResult outcome) {
        try (Stream<Path> all = Files.walk(runDir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
            return new RunResult(
                    outcome.status(),
                    outcome.message() + " (nothing was trained; the run folder " + runDir + " was removed)",
                    runDir,
                    0,
                    outcome.elapsedSeconds(),
                    outcome.lastMetrics(),
                    null);
        } catch (IOException e) {
            return outcome;
        }
    }
}
