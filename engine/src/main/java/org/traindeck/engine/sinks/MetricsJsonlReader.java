package org.traindeck.engine.sinks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a run folder's metrics.jsonl back into engine events (the format {@link JsonlSink} writes), for showing a
 * past run. A line cut short by a crash is skipped.
 */
public final class MetricsJsonlReader {

    private static final ObjectMapper JSON = new ObjectMapper();

    private MetricsJsonlReader() {
    }

    public static List<EngineEvent> read(Path runDir) throws IOException {
        Path file = runDir.resolve("metrics.jsonl");
        if (!Files.isRegularFile(file)) {
            throw new IOException(runDir + " has no metrics.jsonl: is it a TrainDeck run folder?");
        }
        String run = runDir.getFileName().toString();
        List<EngineEvent> events = new ArrayList<>();
        for (String line : MetricFiles.completeLines(file)) {
            JsonNode e;
            try {
                e = JSON.readTree(line);
            } catch (IOException cut) {
                continue; // a line cut short by a crash
            }
            if (e == null) {
                continue;
            }
            long time = Math.round(e.path("time").asDouble() * 1000);
            String stage = e.path("stage").asText("");
            int stageIndex = e.path("stageIndex").asInt();
            int epoch = e.path("epoch").asInt();
            long step = e.path("step").asLong();
            double elapsed = e.path("elapsed").asDouble();
            if (e.has("name")) {
                double value = e.get("value").isNull() ? Double.NaN : e.get("value").asDouble();
                String device = e.has("device") ? e.get("device").asText() : null;
                events.add(new MetricEvent(run, stage, stageIndex, epoch, step, time, elapsed, e.get("name").asText(), value, device));
            } else if (e.has("event")) {
                LifecycleEvent.Kind kind;
                try {
                    kind = LifecycleEvent.Kind.valueOf(e.get("event").asText());
                } catch (IllegalArgumentException unknown) {
                    continue;
                }
                events.add(new LifecycleEvent(run, stage, stageIndex, epoch, step, time, elapsed, kind, e.path("message").asText()));
            }
        }
        return events;
    }
}
