package org.traindeck.engine.library;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.sinks.MetricsJsonlReader;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.sinks.RunStatusSink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Everything under an output folder is a library of runs, read from the run folders themselves (config.json,
 * metrics.jsonl, status.json and the folder's lock), never from a second store that could drift.
 */
public final class RunLibrary {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RunLibrary() {
    }

    /** The runs in {@code outputDir}, oldest first; folders that are not runs are left out. */
    public static List<RunSummary> list(Path outputDir) throws IOException {
        if (!Files.isDirectory(outputDir)) {
            throw new IOException("no such output folder: " + outputDir);
        }
        List<RunSummary> runs = new ArrayList<>();
        try (Stream<Path> children = Files.list(outputDir)) {
            for (Path dir : children.filter(Files::isDirectory).sorted().toList()) {
                if (Files.isRegularFile(dir.resolve("config.json")) && Files.isRegularFile(dir.resolve("metrics.jsonl"))) {
                    runs.add(read(dir));
                }
            }
        }
        runs.sort(Comparator.comparingLong(RunSummary::startedMillis).thenComparing(RunSummary::name));
        return runs;
    }

    /** One run folder, summarised. */
    public static RunSummary read(Path runDir) throws IOException {
        JsonNode config = JSON.readTree(runDir.resolve("config.json").toFile());
        String monitor = config.path("checkpoint").path("monitor").asText("val/loss");
        String mode = config.path("checkpoint").path("mode").asText(monitor.endsWith("accuracy") ? "max" : "min");
        boolean higher = mode.equals("max");
        double best = Double.NaN;
        double last = Double.NaN;
        long steps = 0;
        double elapsed = 0;
        long started = 0;
        String ended = null;
        for (EngineEvent e : MetricsJsonlReader.read(runDir)) {
            steps = Math.max(steps, e instanceof MetricEvent m ? m.step() : ((LifecycleEvent) e).step());
            if (e instanceof MetricEvent m && m.name().equals(monitor) && Double.isFinite(m.value())) {
                last = m.value();
                best = Double.isNaN(best) || (higher ? m.value() > best : m.value() < best) ? m.value() : best;
            }
            if (e instanceof LifecycleEvent l) {
                elapsed = Math.max(elapsed, l.elapsedSeconds());
                if (l.kind() == LifecycleEvent.Kind.RUN_STARTED) {
                    started = l.wallTimeMillis();
                }
                ended = switch (l.kind()) {
                    case RUN_FINISHED -> "finished";
                    case RUN_STOPPED -> "stopped";
                    case RUN_FAILED -> "failed";
                    case RUN_RESUMED, RUN_STARTED -> null;
                    default -> ended;
                };
            }
        }
        String status = ended == null ? "running" : ended;
        Path statusFile = runDir.resolve(RunStatusSink.FILE);
        if (Files.isRegularFile(statusFile)) {
            JsonNode s = JSON.readTree(statusFile.toFile());
            status = s.path("status").asText(status);
            started = s.path("startedMillis").asLong(started);
        }
        if (status.equals("running") && !RunLock.isHeld(runDir)) {
            status = "interrupted";
        }
        return new RunSummary(config.path("name").asText(runDir.getFileName().toString()), runDir, status, steps, monitor, best, last,
                elapsed, started);
    }
}
