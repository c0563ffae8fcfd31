package org.traindeck.engine.trials;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.api.runs.RunResult;

/**
 * What a trial's process and the sweep that supervises it say to each other. The process writes lines to its
 * standard output, each starting with {@link #PREFIX} (anything else there is not the protocol and goes to the trial's
 * process log): {@code prepared STEP}, then {@code event JSON} per event (as metrics.jsonl holds it), then
 * {@code result JSON}; or {@code not-started no-checkpoint|failed MESSAGE}. The sweep writes {@code stop} to the
 * process's standard input; the end of that input (the sweep's process is gone) stops the trial too.
 */
final class TrialProtocol {

    static final String PREFIX = "@traindeck-trial ";
    static final String PREPARED = "prepared";
    static final String EVENT = "event";
    static final String RESULT = "result";
    static final String NOT_STARTED = "not-started";
    static final String NO_CHECKPOINT = "no-checkpoint";
    static final String FAILED = "failed";
    static final String STOP = "stop";

    private static final ObjectMapper JSON = new ObjectMapper();

    private TrialProtocol() {}

    static String line(String kind, String body) {
        // a message is one line: the protocol is line by line
        return PREFIX + kind + " " + body.replace('\n', ' ').replace('\r', ' ');
    }

    static String encode(RunResult r) throws IOException {
        ObjectNode o = JSON.createObjectNode();
        o.put("status", r.status().name());
        o.put("message", r.message());
        o.put("runDir", r.runDir().toString());
        o.put("steps", r.steps());
        o.put("elapsedSeconds", r.elapsedSeconds());
        ObjectNode metrics = o.putObject("lastMetrics");
        r.lastMetrics().forEach((k, v) -> {
            if (Double.isFinite(v)) {
                metrics.put(k, v);
            } else {
                metrics.put(k, Double.toString(v));
            }
        });
        if (r.lastCheckpoint() != null) {
            o.put("lastCheckpoint", r.lastCheckpoint().toString());
        }
        return JSON.writeValueAsString(o);
    }

    static RunResult decode(String json) throws IOException {
        JsonNode o = JSON.readTree(json);
        Map<String, Double> metrics = new LinkedHashMap<>();
        o.path("lastMetrics")
                .fields()
                .forEachRemaining(f -> metrics.put(
                        f.getKey(),
                        f.getValue().isNumber()
                                ? f.getValue().asDouble()
                                : Double.parseDouble(f.getValue().asText())));
        return new RunResult(
                RunResult.Status.valueOf(o.path("status").asText()),
                o.path("message").asText(),
                Path.of(o.path("runDir").asText()),
                o.path("steps").asLong(),
                o.path("elapsedSeconds").asDouble(),
                metrics,
                o.hasNonNull("lastCheckpoint")
                        ? Path.of(o.path("lastCheckpoint").asText())
                        : null);
    }
}
