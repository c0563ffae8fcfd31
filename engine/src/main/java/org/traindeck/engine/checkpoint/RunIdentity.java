package org.traindeck.engine.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.traindeck.engine.sinks.RunFolder;

/**
 * The id a run folder gets when its run is created (file {@code run-id}), recorded in every checkpoint the run
 * writes: a checkpoint copied in from another run, even one of the same name and model, is told apart by it.
 * Folders and checkpoints from before TrainDeck recorded ids have none, and are judged by run name alone.
 */
public final class RunIdentity {

    public static final String FILE = RunFolder.RUN_ID;
    private static final ObjectMapper JSON = new ObjectMapper();

    private RunIdentity() {}

    /** Writes a new id for a run being created (a folder that has one keeps it); returns the folder's id. */
    public static String create(Path runDir) throws IOException {
        String existing = of(runDir);
        if (!existing.isEmpty()) {
            return existing;
        }
        String id = UUID.randomUUID().toString();
        Files.writeString(runDir.resolve(FILE), id + "\n", StandardCharsets.UTF_8);
        return id;
    }

    /** The folder's run id, or "" when it has none (a run created before ids were recorded) or it cannot be read. */
    public static String of(Path runDir) {
        try {
            return Files.isRegularFile(runDir.resolve(FILE))
                    ? Files.readString(runDir.resolve(FILE), StandardCharsets.UTF_8)
                            .trim()
                    : "";
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Why a checkpoint is not this run folder's own, or null when it is (or nothing tells: no ids, no readable
     * config.json): a different run id, else a different run name.
     */
    public static String foreignReason(Path runDir, Checkpoint c) {
        String id = of(runDir);
        if (!id.isEmpty() && !c.runId().isEmpty()) {
            return id.equals(c.runId())
                    ? null
                    : "from another run (run id " + c.runId() + "; this run's is " + id + ")";
        }
        try {
            String name = JSON.readTree(RunFolder.of(runDir).config().toFile())
                    .path("name")
                    .asText();
            return name.isEmpty() || name.equals(c.runName())
                    ? null
                    : "from another run (\"" + c.runName() + "\"; this run is \"" + name + "\")";
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
