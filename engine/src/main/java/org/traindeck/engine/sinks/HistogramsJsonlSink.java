package org.traindeck.engine.sinks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Path;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.HistogramEvent;

/**
 * {@code histograms.jsonl}: one JSON object per layer histogram, in the shape of {@link HistogramEvent} ({@code time},
 * {@code elapsed}, {@code stage}, {@code stageIndex}, {@code epoch}, {@code step}, {@code node}, {@code quantity},
 * {@code min}, {@code max}, {@code count}, {@code sum}, {@code sumSquares}, {@code bucketLimits}, {@code bucketCounts}),
 * so that the app can show a past run's histograms. A non-finite number is written as null. Appends.
 */
public final class HistogramsJsonlSink extends AppendingTextSink {

    public static final String FILE = RunFolder.HISTOGRAMS;

    private static final JsonFactory JSON = new JsonFactory();

    private final StringWriter line = new StringWriter(1024);

    public HistogramsJsonlSink(Path file) throws IOException {
        super(file);
    }

    @Override
    protected void truncateAfter(Path file, long step) throws IOException {
        MetricFiles.truncateJsonl(file, step);
    }

    @Override
    protected void append(EngineEvent e, Writer out) throws IOException {
        if (!(e instanceof HistogramEvent h)) {
            return;
        }
        line.getBuffer().setLength(0);
        try (JsonGenerator g = JSON.createGenerator(line)) {
            g.writeStartObject();
            JsonlSink.writeWhen(g, h);
            g.writeStringField("node", h.node());
            g.writeStringField("quantity", h.quantity());
            number(g, "min", h.min());
            number(g, "max", h.max());
            g.writeNumberField("count", h.count());
            number(g, "sum", h.sum());
            number(g, "sumSquares", h.sumSquares());
            array(g, "bucketLimits", h.bucketLimits());
            array(g, "bucketCounts", h.bucketCounts());
            g.writeEndObject();
        }
        line.write('\n');
        out.write(line.getBuffer().toString());
    }

    private static void number(JsonGenerator g, String name, double v) throws IOException {
        if (Double.isFinite(v)) {
            g.writeNumberField(name, v);
        } else {
            g.writeNullField(name);
        }
    }

    private static void array(JsonGenerator g, String name, double[] values) throws IOException {
        g.writeArrayFieldStart(name);
        for (double v : values) {
            if (Double.isFinite(v)) {
                g.writeNumber(v);
            } else {
                g.writeNull();
            }
        }
        g.writeEndArray();
    }
}
