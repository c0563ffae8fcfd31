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
        Fields f = new Fields();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                p.skipChildren();
                continue;
            }
            read(f, field, t, p);
        }
        if (p.currentToken() != JsonToken.END_OBJECT) {
            return null;
        }
        return event(f);
    }

    /** One line's fields, as far as it has them. */
    private static final class Fields {
        double time;
        double elapsed;
        String stage = "";
        int stageIndex;
        int epoch;
        long step;
        String name;
        double value = Double.NaN;
        String device;
        String event;
        String message = "";
    }

    private void read(Fields f, String field, JsonToken t, JsonParser p) throws IOException {
        switch (field) {
            case "time" -> f.time = p.getValueAsDouble();
            case "elapsed" -> f.elapsed = p.getValueAsDouble();
            case "stage" -> f.stage = shared(p.getValueAsString(""));
            case "stageIndex" -> f.stageIndex = p.getValueAsInt();
            case "epoch" -> f.epoch = p.getValueAsInt();
            case "step" -> f.step = p.getValueAsLong();
            case "name" -> f.name = shared(p.getValueAsString(""));
            case "value" -> f.value = t == JsonToken.VALUE_NULL ? Double.NaN : p.getValueAsDouble(Double.NaN);
            case "device" -> f.device = t == JsonToken.VALUE_NULL ? null : shared(p.getValueAsString(""));
            case "event" -> f.event = p.getValueAsString("");
            case "message" -> f.message = p.getValueAsString("");
            default -> {}
        }
    }

    /** A metric when the line names one, a lifecycle event when it names a known kind, else nothing. */
    private EngineEvent event(Fields f) {
        long millis = Math.round(f.time * 1000);
        if (f.name != null) {
            return new MetricEvent(
                    run, f.stage, f.stageIndex, f.epoch, f.step, millis, f.elapsed, f.name, f.value, f.device);
        }
        if (f.event != null) {
            try {
                return new LifecycleEvent(
                        run,
                        f.stage,
                        f.stageIndex,
                        f.epoch,
                        f.step,
                        millis,
                        f.elapsed,
                        LifecycleEvent.Kind.valueOf(f.event),
                        f.message);
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
