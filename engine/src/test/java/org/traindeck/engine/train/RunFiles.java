package org.traindeck.engine.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads a run folder's metrics.jsonl back for assertions. */
final class RunFiles {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RunFiles() {}

    static List<JsonNode> jsonl(Path runDir) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    static List<JsonNode> metric(List<JsonNode> events, String name) {
        return events.stream()
                .filter(e -> name.equals(e.path("name").asText(null)))
                .toList();
    }

    static List<String> lifecycle(List<JsonNode> events) {
        return events.stream()
                .filter(e -> e.has("event"))
                .map(e -> e.get("event").asText())
                .toList();
    }

    static double mean(List<JsonNode> values, int from, int to) {
        return values.subList(from, to).stream()
                .mapToDouble(v -> v.get("value").asDouble())
                .average()
                .orElseThrow();
    }
}
