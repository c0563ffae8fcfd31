package org.traindeck.engine.sinks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.events.SamplesEvent;

/**
 * Reads a run folder's {@code samples/} ({@link SamplesFileSink}) back as events, so that a past run shows its sample
 * predictions as a live one did. A line that cannot be read, or a picture file that is gone, is left out.
 */
public final class SamplesFileReader {

    private static final ObjectMapper JSON = new ObjectMapper();

    private SamplesFileReader() {}

    /** The kept intervals in order; empty when the run made none. */
    public static List<SamplesEvent> read(Path runDir, String runName) {
        Path folder = runDir.resolve(SamplesFileSink.FOLDER);
        Path index = folder.resolve(SamplesFileSink.INDEX);
        List<SamplesEvent> out = new ArrayList<>();
        if (!Files.isRegularFile(index)) {
            return out;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(index, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return out;
        }
        for (String line : lines) {
            try {
                out.add(event(JSON.readTree(line), folder, runName));
            } catch (IOException | RuntimeException e) {
                // a torn or foreign line: the other intervals still show
            }
        }
        return out;
    }

    private static SamplesEvent event(JsonNode n, Path folder, String runName) throws IOException {
        List<SamplesEvent.Sample> samples = new ArrayList<>();
        for (JsonNode s : n.path("samples")) {
            List<SamplesEvent.Score> top = new ArrayList<>();
            for (JsonNode t : s.path("top")) {
                top.add(new SamplesEvent.Score(
                        t.path("label").asText(), t.path("probability").asDouble()));
            }
            List<SamplesEvent.Picture> pictures = new ArrayList<>();
            for (JsonNode p : s.path("pictures")) {
                Path file = folder.resolve(p.path("file").asText()).normalize();
                if (file.startsWith(folder) && Files.isRegularFile(file)) {
                    pictures.add(new SamplesEvent.Picture(
                            p.path("label").asText(),
                            p.path("width").asInt(),
                            p.path("height").asInt(),
                            p.path("channels").asInt(3),
                            Files.readAllBytes(file)));
                }
            }
            samples.add(new SamplesEvent.Sample(
                    s.path("index").asInt(),
                    text(s, "truth"),
                    text(s, "predicted"),
                    top,
                    text(s, "prompt"),
                    text(s, "text"),
                    pictures));
        }
        long millis = Math.round(n.path("time").asDouble() * 1000);
        return new SamplesEvent(
                runName,
                n.path("stage").asText(),
                n.path("stageIndex").asInt(),
                n.path("epoch").asInt(),
                n.path("step").asLong(),
                millis,
                0,
                n.path("task").asText(),
                n.path("interval").asInt(),
                samples);
    }

    private static String text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v == null || v.isNull() ? null : v.asText();
    }
}
