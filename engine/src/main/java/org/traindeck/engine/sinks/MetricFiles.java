package org.traindeck.engine.sinks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Trims a run's metric files to a step before a resume continues them: what a crashed or stopped attempt wrote after
 * its last checkpoint is recomputed by the resumed run, so keeping it would draw those steps twice. Rewritten through
 * a temporary file and an atomic rename.
 */
public final class MetricFiles {

    private static final ObjectMapper JSON = new ObjectMapper();

    private MetricFiles() {
    }

    /** Keeps the events with step ≤ {@code lastStep} in both files; returns how many lines were dropped. */
    public static int truncateAfter(Path runDir, long lastStep) throws IOException {
        return truncateJsonl(runDir.resolve("metrics.jsonl"), lastStep) + truncateCsv(runDir.resolve("metrics.csv"), lastStep);
    }

    static int truncateJsonl(Path jsonl, long lastStep) throws IOException {
        if (!Files.exists(jsonl)) {
            return 0;
        }
        return rewrite(jsonl, line -> {
            try {
                JsonNode n = JSON.readTree(line);
                return n != null && n.path("step").asLong(Long.MAX_VALUE) <= lastStep;
            } catch (IOException e) {
                return false; // a line cut by a crash
            }
        }, 0);
    }

    static int truncateCsv(Path csv, long lastStep) throws IOException {
        if (!Files.exists(csv)) {
            return 0;
        }
        return rewrite(csv, line -> {
            String[] cells = line.split(",");
            try {
                return cells.length >= 8 && Long.parseLong(cells[5]) <= lastStep;
            } catch (NumberFormatException e) {
                return false;
            }
        }, 1);
    }

    private static int rewrite(Path file, java.util.function.Predicate<String> keep, int headerLines) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Path temp = file.resolveSibling("." + file.getFileName() + ".trim");
        int dropped = 0;
        try (Writer w = Files.newBufferedWriter(temp, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (i < headerLines || keep.test(line)) {
                    w.write(line);
                    w.write('\n');
                } else {
                    dropped++;
                }
            }
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return dropped;
    }
}
