package org.traindeck.engine.sinks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;

/**
 * Reads a run folder's metrics.jsonl back into engine events (the format {@link JsonlSink} writes), one line at a
 * time: a file of any size is read in bounded memory, and what is kept of it is the caller's choice (a digest, a
 * reduced history). A line cut short by a crash is skipped.
 */
public final class MetricsJsonlReader {

    private static final JsonFactory JSON = new JsonFactory();

    private final String run;
    /** The few distinct names, stages and devices, shared rather than copied per line (a file has millions of lines). */
    private final Map<String, String> names = new HashMap<>();

    private MetricsJsonlReader(String run) {
        this.run = run;
    }

    /** Hands every event of {@code runDir}'s metrics.jsonl to {@code events}, in the file's order. */
    public static void forEach(Path runDir, Consumer<? super EngineEvent> events) throws IOException {
        Path file = RunFolder.of(runDir).metricsJsonl();
        if (!Files.isRegularFile(file)) {
            throw new IOException(runDir + " has no metrics.jsonl: is it a TrainDeck run folder?");
        }
        MetricsJsonlReader reader = new MetricsJsonlReader(runDir.getFileName().toString());
        MetricLines.forEach(file, (bytes, offset, length) -> {
            EngineEvent e = reader.parse(bytes, offset, length);
            if (e != null) {
                events.accept(e);
            }
        });
    }

    /** Reads single lines of the file's format (a trial process's events), naming their run {@code run}. */
    public static Function<String, EngineEvent> lines(String run) {
        MetricsJsonlReader reader = new MetricsJsonlReader(run);
        return line -> {
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            return reader.parse(bytes, 0, bytes.length);
        };
    }

    private EngineEvent parse(byte[] bytes, int offset, int length) {
        try (JsonParser p = JSON.createParser(bytes, offset, length)) {
            return parse(p);
        } catch (IOException notUtf8OrCut) {
            // a message with bytes that are not UTF-8 is still an event; a line cut short is not
            try (JsonParser p = JSON.createParser(MetricLines.decode(bytes, offset, length))) {
                return parse(p);
            } catch (IOException cut) {
                return null;
            }
        }
    }

    private EngineEvent parse(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        double time = 0;
        double elapsed = 0;
        String stage = "";
        int stageIndex = 0;
        int epoch = 0;
        long step = 0;
        String name = null;
        double value = Double.NaN;
        String device = null;
        String event = null;
        String message = "";
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                p.skipChildren();
                continue;
            }
            switch (field) {
                case "time" -> time = p.getValueAsDouble();
                case "elapsed" -> elapsed = p.getValueAsDouble();
                case "stage" -> stage = shared(p.getValueAsString(""));
                case "stageIndex" -> stageIndex = p.getValueAsInt();
                case "epoch" -> epoch = p.getValueAsInt();
                case "step" -> step = p.getValueAsLong();
                case "name" -> name = shared(p.getValueAsString(""));
                case "value" -> value = t == JsonToken.VALUE_NULL ? Double.NaN : p.getValueAsDouble(Double.NaN);
                case "device" -> device = t == JsonToken.VALUE_NULL ? null : shared(p.getValueAsString(""));
                case "event" -> event = p.getValueAsString("");
                case "message" -> message = p.getValueAsString("");
                default -> {}
            }
        }
        if (p.currentToken() != JsonToken.END_OBJECT) {
            return null;
        }
        long millis = Math.round(time * 1000);
        if (name != null) {
            return new MetricEvent(run, stage, stageIndex, epoch, step, millis, elapsed, name, value, device);
        }
        if (event != null) {
            try {
                return new LifecycleEvent(
                        run,
                        stage,
                        stageIndex,
                        epoch,
                        step,
                        millis,
                        elapsed,
                        LifecycleEvent.Kind.valueOf(event),
                        message);
            } catch (IllegalArgumentException unknown) {
                return null;
            }
        }
        return null;
    }

    private String shared(String s) {
        if (names.size() > 10_000) {
            return s; // a file with endless distinct names does not grow the table
        }
        return names.computeIfAbsent(s, k -> k);
    }
}
