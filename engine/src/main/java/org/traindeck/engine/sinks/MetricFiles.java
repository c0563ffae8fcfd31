package org.traindeck.engine.sinks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.function.Predicate;

/**
 * Trims a run's metric files to a step before a resume continues them: what a crashed or stopped attempt wrote after
 * its last checkpoint is recomputed by the resumed run, so keeping it would draw those steps twice. Rewritten through
 * a temporary file and an atomic rename; the lines cut are kept in a side file next to it
 * ({@code metrics.jsonl.after-step-N}), never deleted. A last line without its newline (cut by a crash, perhaps inside
 * a character) is dropped.
 */
public final class MetricFiles {

    private static final ObjectMapper JSON = new ObjectMapper();

    private MetricFiles() {}

    /** Keeps the events with step ≤ {@code lastStep} in the metric and histogram files; returns how many lines were dropped. */
    public static int truncateAfter(Path runDir, long lastStep) throws IOException {
        return truncateJsonl(RunFolder.of(runDir).metricsJsonl(), lastStep)
                + truncateCsv(RunFolder.of(runDir).metricsCsv(), lastStep)
                + truncateJsonl(runDir.resolve(HistogramsJsonlSink.FILE), lastStep);
    }

    static int truncateJsonl(Path jsonl, long lastStep) throws IOException {
        if (!Files.exists(jsonl)) {
            return 0;
        }
        return rewrite(
                jsonl,
                line -> {
                    try {
                        JsonNode n = JSON.readTree(line);
                        return n != null && n.path("step").asLong(Long.MAX_VALUE) <= lastStep;
                    } catch (IOException e) {
                        return false; // a line cut by a crash
                    }
                },
                0,
                lastStep);
    }

    static int truncateCsv(Path csv, long lastStep) throws IOException {
        if (!Files.exists(csv)) {
            return 0;
        }
        return rewrite(
                csv,
                line -> {
                    String[] cells = line.split(",");
                    try {
                        return cells.length >= 8 && Long.parseLong(cells[5]) <= lastStep;
                    } catch (NumberFormatException e) {
                        return false;
                    }
                },
                1,
                lastStep);
    }

    private static int rewrite(Path file, Predicate<String> keep, int headerLines, long lastStep) throws IOException {
        Path temp = file.resolveSibling("." + file.getFileName() + ".trim");
        Path side = file.resolveSibling(file.getFileName() + ".after-step-" + lastStep);
        int[] seen = {0, 0}; // lines read, lines cut
        OutputStream[] cut = {null};
        try (OutputStream kept = new BufferedOutputStream(
                Files.newOutputStream(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING))) {
            // streamed: a resume of a run with gigabytes of metrics does not hold them
            MetricLines.forEach(file, (bytes, offset, length) -> {
                boolean header = seen[0]++ < headerLines;
                OutputStream to = kept;
                if (!header && !keep.test(MetricLines.decode(bytes, offset, length))) {
                    if (cut[0] == null) {
                        // what a later attempt wrote is the user's too: kept beside the file, not deleted
                        cut[0] = new BufferedOutputStream(
                                Files.newOutputStream(side, StandardOpenOption.CREATE, StandardOpenOption.APPEND));
                    }
                    to = cut[0];
                    seen[1]++;
                }
                to.write(bytes, offset, length);
                to.write('\n');
            });
        } finally {
            if (cut[0] != null) {
                cut[0].close();
            }
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return seen[1];
    }
}
