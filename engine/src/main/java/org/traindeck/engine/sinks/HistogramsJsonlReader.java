package org.traindeck.engine.sinks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.events.HistogramEvent;

/**
 * Reads a run folder's histograms.jsonl back into {@link HistogramEvent}s, keeping only the last few steps of each
 * node and quantity: what the app shows of a past run, in bounded memory however long the run was. A line cut short
 * by a crash is skipped; a run without the file has no histograms.
 */
public final class HistogramsJsonlReader {

    /** Steps kept per node and quantity. */
    public static final int KEPT_STEPS = 20;

    private static final ObjectMapper JSON = new ObjectMapper();

    private HistogramsJsonlReader() {}

    /** The last {@code keep} histograms of each node and quantity, by step (then node, quantity). */
    public static List<HistogramEvent> latest(Path runDir, int keep) throws IOException {
        Path file = runDir.resolve(HistogramsJsonlSink.FILE);
        if (!Files.isRegularFile(file)) {
            return List.of();
        }
        String run = runDir.getFileName().toString();
        Map<String, Deque<HistogramEvent>> kept = new LinkedHashMap<>();
        MetricLines.forEach(file, (bytes, offset, length) -> {
            HistogramEvent h = parse(run, bytes, offset, length);
            if (h != null) {
                Deque<HistogramEvent> series =
                        kept.computeIfAbsent(h.node() + "\u0000" + h.quantity(), k -> new ArrayDeque<>());
                series.addLast(h);
                if (series.size() > keep) {
                    series.removeFirst();
                }
            }
        });
        List<HistogramEvent> out = new ArrayList<>();
        kept.values().forEach(out::addAll);
        out.sort(Comparator.comparingLong(HistogramEvent::step));
        return out;
    }

    private static HistogramEvent parse(String run, byte[] bytes, int offset, int length) {
        try {
            JsonNode n = JSON.readTree(bytes, offset, length);
            if (n == null || !n.has("node") || !n.has("bucketLimits")) {
                return null;
            }
            return new HistogramEvent(
                    run,
                    n.path("stage").asText(""),
                    n.path("stageIndex").asInt(),
                    n.path("epoch").asInt(),
                    n.path("step").asLong(),
                    Math.round(n.path("time").asDouble() * 1000),
                    n.path("elapsed").asDouble(),
                    n.path("node").asText(),
                    n.path("quantity").asText(),
                    number(n.get("min")),
                    number(n.get("max")),
                    n.path("count").asLong(),
                    number(n.get("sum")),
                    number(n.get("sumSquares")),
                    doubles(n.get("bucketLimits")),
                    doubles(n.get("bucketCounts")));
        } catch (IOException | RuntimeException cut) {
            return null; // a line cut short by a crash, or counts that do not match their limits
        }
    }

    private static double number(JsonNode n) {
        return n == null || !n.isNumber() ? Double.NaN : n.asDouble();
    }

    private static double[] doubles(JsonNode array) {
        if (array == null || !array.isArray()) {
            return new double[0];
        }
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = number(array.get(i));
        }
        return out;
    }
}
