package org.traindeck.engine.sinks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
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
        }, 0, lastStep);
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
        }, 1, lastStep);
    }

    private static int rewrite(Path file, Predicate<String> keep, int headerLines, long lastStep) throws IOException {
        List<String> lines = completeLines(file);
        Path temp = file.resolveSibling("." + file.getFileName() + ".trim");
        List<String> cut = new ArrayList<>();
        try (Writer w = Files.newBufferedWriter(temp, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (i < headerLines || keep.test(line)) {
                    w.write(line);
                    w.write('\n');
                } else {
                    cut.add(line);
                }
            }
        }
        if (!cut.isEmpty()) {
            // what a later attempt wrote is the user's too: kept beside the file, not deleted
            Path side = file.resolveSibling(file.getFileName() + ".after-step-" + lastStep);
            Files.write(side, cut, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return cut.size();
    }

    /**
     * The file's lines that end with a newline, decoded leniently: a crash can cut the last line anywhere, even
     * inside a multi-byte character, and that line is not data.
     */
    public static List<String> completeLines(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n') {
            end--;
        }
        String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(bytes, 0, end)).toString();
        List<String> lines = new ArrayList<>(text.lines().toList());
        return lines;
    }
}
