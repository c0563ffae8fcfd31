package org.traindeck.engine.sinks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Path;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.RunEvent;

/**
 * {@code metrics.jsonl}: one JSON object per event. Metrics have {@code name}, {@code value}, {@code step},
 * {@code stage}, {@code stageIndex}, {@code epoch}, {@code time} (Unix seconds), {@code elapsed} (training seconds)
 * and, per device, {@code device}. Lifecycle events have {@code event} and {@code message} instead of name/value.
 * A non-finite value is written as null with {@code "nonFinite": "NaN"} (JSON has no NaN). Appends to an existing file.
 */
public final class JsonlSink extends AppendingTextSink {

    private static final JsonFactory JSON = new JsonFactory();
    private static final JsonStringEncoder STRINGS = JsonStringEncoder.getInstance();

    public JsonlSink(Path file) throws IOException {
        super(file);
    }

    @Override
    protected void truncateAfter(Path file, long step) throws IOException {
        MetricFiles.truncateJsonl(file, step);
    }

    @Override
    protected void append(EngineEvent e, Writer out) throws IOException {
        if (!(e instanceof RunEvent event) || e instanceof HistogramEvent) {
            return; // device telemetry belongs to no run; histograms have their own file
        }
        out.write(line(event));
        out.write('\n');
    }

    /** The event as one line of the file, without its line break (a trial's process sends its events so, too). */
    public static String line(RunEvent event) throws IOException {
        if (event instanceof MetricEvent m) {
            return metricLine(m);
        }
        StringWriter line = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(line)) {
            g.writeStartObject();
            writeWhen(g, event);
            if (event instanceof LifecycleEvent l) {
                g.writeStringField("event", l.kind().name());
                g.writeStringField("message", l.message());
            }
            g.writeEndObject();
        }
        return line.toString();
    }

    /**
     * A metric's line, the bulk of the file, written straight into one builder: the text Jackson's generator writes
     * (its string escapes, Double.toString's numbers), without a generator and its buffers on every line, which also
     * made this the largest of the sinks' methods for the JIT to compile.
     */
    private static String metricLine(MetricEvent m) {
        StringBuilder line = new StringBuilder(192).append("{\"time\":");
        Thousandths.append(line, m.wallTimeMillis()).append(",\"elapsed\":");
        Thousandths.append(line, Math.round(m.elapsedSeconds() * 1000)).append(",\"stage\":");
        quoted(line, m.stage())
                .append(",\"stageIndex\":")
                .append(m.stageIndex())
                .append(",\"epoch\":")
                .append(m.epoch())
                .append(",\"step\":")
                .append(m.step())
                .append(",\"name\":");
        quoted(line, m.name());
        if (Double.isFinite(m.value())) {
            line.append(",\"value\":").append(m.value());
        } else {
            line.append(",\"value\":null,\"nonFinite\":");
            quoted(line, Double.toString(m.value()));
        }
        if (m.device() != null) {
            quoted(line.append(",\"device\":"), m.device());
        }
        return line.append('}').toString();
    }

    private static StringBuilder quoted(StringBuilder line, String text) {
        if (text == null) {
            return line.append("null");
        }
        line.append('"');
        STRINGS.quoteAsString(text, line);
        return line.append('"');
    }

    /**
     * When in the run the event happened: {@code time}, {@code elapsed}, {@code stage}, {@code stageIndex},
     * {@code epoch} and {@code step}, the fields every line of a run's JSON Lines files starts with.
     */
    static void writeWhen(JsonGenerator g, RunEvent event) throws IOException {
        g.writeFieldName("time");
        g.writeNumber(Thousandths.of(event.wallTimeMillis()));
        g.writeFieldName("elapsed");
        g.writeNumber(Thousandths.of(Math.round(event.elapsedSeconds() * 1000)));
        g.writeStringField("stage", event.stage());
        g.writeNumberField("stageIndex", event.stageIndex());
        g.writeNumberField("epoch", event.epoch());
        g.writeNumberField("step", event.step());
    }
}
