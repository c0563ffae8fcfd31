package org.traindeck.engine.library;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.devices.energy.EnergyFile;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.MetricTable;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.sinks.RunStatusSink;

/**
 * Everything under an output folder is a library of runs, read from the run folders themselves (config.json,
 * metrics.jsonl, status.json and the folder's lock), never from a second store that could drift.
 */
public final class RunLibrary {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RunLibrary() {}

    /** The runs in {@code outputDir}, oldest first; folders that are not runs are left out. */
    public static List<RunSummary> list(Path outputDir) throws IOException {
        return list(outputDir, new MetricsDigests());
    }

    /** As {@link #list(Path)}, reading metrics only where they changed since {@code digests} last read them. */
    public static List<RunSummary> list(Path outputDir, MetricsDigests digests) throws IOException {
        if (!Files.isDirectory(outputDir)) {
            throw new IOException("no such output folder: " + outputDir);
        }
        List<RunSummary> runs = new ArrayList<>();
        try (Stream<Path> children = Files.list(outputDir)) {
            for (Path dir : children.filter(Files::isDirectory).sorted().toList()) {
                if (Files.isRegularFile(RunFolder.of(dir).config())
                        && Files.isRegularFile(RunFolder.of(dir).metricsJsonl())) {
                    runs.add(read(dir, digests));
                }
            }
        }
        runs.sort(Comparator.comparingLong(RunSummary::startedMillis).thenComparing(RunSummary::name));
        return runs;
    }

    /** One run folder, summarised. */
    static RunSummary read(Path runDir, MetricsDigests digests) throws IOException {
        JsonNode config = JSON.readTree(RunFolder.of(runDir).config().toFile());
        String monitor = config.path("checkpoint").path("monitor").asText(MetricNames.VAL_LOSS);
        String mode = config.path("checkpoint")
                .path("mode")
                .asText(MetricTable.of(monitor).higherIsBetter() ? "max" : "min");
        MetricsDigest d = digests.of(runDir);
        EnergyReport energy = energy(runDir, d);
        String status = d.ended() == null ? "running" : d.ended();
        long started = d.startedMillis();
        Path statusFile = runDir.resolve(RunStatusSink.FILE);
        if (Files.isRegularFile(statusFile)) {
            JsonNode s = JSON.readTree(statusFile.toFile());
            status = s.path("status").asText(status);
            started = s.path("startedMillis").asLong(started);
        }
        if (status.equals("running") && !RunLock.isHeld(runDir)) {
            status = "interrupted";
        }
        return new RunSummary(
                config.path("name").asText(runDir.getFileName().toString()),
                runDir,
                status,
                d.steps(),
                monitor,
                d.best(monitor, mode.equals("max")),
                d.last(monitor),
                d.elapsedSeconds(),
                started,
                energy.total(),
                energy.wattHours().isEmpty() ? energy.unavailable() : null);
    }

    /**
     * The energy a run's devices used as its folder records it (energy.json), by device and stage or why it could not
     * be measured; for a run trained before that record, its energy metrics, else that it was not recorded.
     */
    public static EnergyReport energy(Path runDir, MetricsDigests digests) throws IOException {
        return energy(runDir, digests.of(runDir));
    }

    /** A damaged record is said as the reason, so that one run's file does not keep the others from being listed. */
    private static EnergyReport energy(Path runDir, MetricsDigest d) {
        try {
            EnergyReport recorded = EnergyFile.read(RunFolder.of(runDir).energy());
            return recorded != null ? recorded : energy(d);
        } catch (IOException e) {
            return EnergyReport.unavailable("its energy record cannot be read: " + e.getMessage(), List.of());
        }
    }

    private static EnergyReport energy(MetricsDigest d) {
        Map<String, Double> last = new HashMap<>();
        d.metrics().forEach((name, v) -> last.put(name, v.last()));
        return EnergyReport.fromMetrics(last);
    }
}
