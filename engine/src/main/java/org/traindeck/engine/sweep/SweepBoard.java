package org.traindeck.engine.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.sweeps.Sweep;
import org.traindeck.engine.api.sweeps.Trial;
import org.traindeck.engine.library.MetricsDigest;
import org.traindeck.engine.library.MetricsDigests;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.sinks.RunFolder;

/**
 * The sweeps of an output folder as their queues and runs record them, for a front end: each trial's values, status
 * and metric, best first. Read from the sweep's queue file and the trials' own folders, never from a second store.
 */
public final class SweepBoard {

    private static final ObjectMapper JSON = new ObjectMapper();

    private SweepBoard() {}

    /**
     * Every sweep whose queue is in {@code outputDir} (sweep-NAME.json), by name; trials' metrics are read only where
     * they changed since {@code digests} last read them.
     */
    public static List<Sweep> list(Path outputDir, MetricsDigests digests) throws IOException {
        if (!Files.isDirectory(outputDir)) {
            return List.of();
        }
        List<Sweep> sweeps = new ArrayList<>();
        try (Stream<Path> files = Files.list(outputDir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().matches("sweep-.+\\.json"))
                    .sorted()
                    .toList()) {
                RunQueue queue = RunQueue.open(f);
                if (queue.sweep() != null) {
                    sweeps.add(read(queue, digests));
                }
            }
        }
        return sweeps;
    }

    static Sweep read(RunQueue queue, MetricsDigests digests) throws IOException {
        JsonNode d = queue.sweep();
        String metric = d.path("metric").asText();
        boolean maximize = "max".equals(d.path("goal").asText());
        List<String> parameters = new ArrayList<>();
        d.path("parameters").forEach(p -> parameters.add(p.asText()));
        List<Trial> trials = new ArrayList<>();
        for (QueueEntry e : queue.entries()) {
            JsonNode config = JSON.readTree(e.config());
            Map<String, String> values = new LinkedHashMap<>();
            for (String p : parameters) {
                JsonNode v = JsonPaths.get(config, p);
                values.put(
                        p,
                        v == null
                                ? ""
                                : v.isNumber()
                                        ? new BigDecimal(v.asText())
                                                .stripTrailingZeros()
                                                .toPlainString()
                                        : v.isTextual() ? v.asText() : v.toString());
            }
            double[] bestLast = metric(e.runDir(), metric, maximize, digests);
            trials.add(new Trial(e.label(), values, e.status(), bestLast[0], bestLast[1], e.runDir()));
        }
        trials.sort(Comparator.<Trial, Boolean>comparing(t -> Double.isNaN(t.best()))
                .thenComparingDouble(t -> maximize ? -t.best() : t.best()));
        return new Sweep(d.path("name").asText(), metric, maximize, parameters, trials, queue.file());
    }

    /** The metric's best and last value in a run folder's metrics.jsonl; NaN, NaN when it has none. */
    static double[] metric(Path runDir, String metric, boolean maximize, MetricsDigests digests) throws IOException {
        if (runDir == null || !Files.isRegularFile(RunFolder.of(runDir).metricsJsonl())) {
            return new double[] {Double.NaN, Double.NaN};
        }
        MetricsDigest d = digests.of(runDir);
        return new double[] {d.best(metric, maximize), d.last(metric)};
    }
}
