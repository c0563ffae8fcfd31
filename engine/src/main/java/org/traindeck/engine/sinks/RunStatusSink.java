package org.traindeck.engine.sinks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.TrainingListener;

/**
 * Keeps {@code status.json} in the run folder up to date as the run goes (started, each epoch, how it ended), so a
 * listing of runs reads each run's state from its own folder. Written to a temporary file and renamed, so it is
 * always whole. A run whose status says "running" while nothing holds its folder's lock was interrupted.
 */
public final class RunStatusSink implements TrainingListener {

    public static final String FILE = RunFolder.STATUS;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final String runName;
    private long startedMillis;
    private boolean filesIncomplete;

    public RunStatusSink(Path runDir, String runName) {
        this.file = runDir.resolve(FILE);
        this.runName = runName;
    }

    @Override
    public void onLifecycle(LifecycleEvent l) {
        String status = switch (l.kind()) {
            case RUN_STARTED, RUN_RESUMED, EPOCH_FINISHED, STAGE_STARTED -> "running";
            case FILE_WRITE_FAILED -> {
                filesIncomplete = true;
                yield null;
            }
            case RUN_FINISHED -> filesIncomplete ? "incomplete" : "finished";
            case RUN_STOPPED -> "stopped";
            case RUN_FAILED -> "failed";
            default -> null;
        };
        if (status == null) {
            return;
        }
        if (startedMillis == 0 || l.kind() == LifecycleEvent.Kind.RUN_STARTED) {
            startedMillis = l.wallTimeMillis() - Math.round(l.elapsedSeconds() * 1000);
        }
        ObjectNode o = JSON.createObjectNode();
        o.put("name", runName);
        o.put("status", status);
        o.put("steps", l.step());
        o.put("elapsedSeconds", l.elapsedSeconds());
        o.put("startedMillis", startedMillis);
        o.put("updatedMillis", l.wallTimeMillis());
        o.put("pid", ProcessHandle.current().pid());
        if (l.isTerminal()) {
            o.put("message", l.message());
        }
        try {
            Path temp = file.resolveSibling("." + FILE + ".tmp");
            Files.write(temp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(o));
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            // the listing then derives the state from metrics.jsonl
        }
    }
}
