package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.events.MetricEvent;

/** A metric's line, written by hand, is the line Jackson's generator wrote for it, character for character. */
class JsonlMetricLineTest {

    private static final String ALPHABET =
            "az/_:.-09 \"\\\u0000\u0001\u001f\t\n\r\b\f\u007f\u0080é€\u2028\uD83D\uDE00\uD800";

    @Test
    void metricLinesAreTheGeneratorsLines() throws IOException {
        SplittableRandom r = new SplittableRandom(11);
        double[] special = {
            0.0,
            -0.0,
            1e-3,
            2.302585092994046,
            1e7,
            1e-7,
            123456789.0,
            Double.MIN_VALUE,
            Double.MAX_VALUE,
            Double.NaN,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY,
            3120.4999999999995
        };
        for (int i = 0; i < 20_000; i++) {
            double value = i < special.length ? special[i] : randomDouble(r);
            MetricEvent m = new MetricEvent(
                    "run",
                    i % 97 == 0 ? null : text(r),
                    r.nextInt(-3, 40),
                    r.nextInt(-1, 1000),
                    r.nextLong() >> r.nextInt(64),
                    r.nextLong() >> r.nextInt(64),
                    r.nextDouble(-1e3, 1e7),
                    text(r),
                    value,
                    r.nextBoolean() ? null : text(r));
            assertThat(JsonlSink.line(m)).isEqualTo(generatorLine(m));
        }
    }

    private static double randomDouble(SplittableRandom r) {
        return switch (r.nextInt(3)) {
            case 0 -> Double.longBitsToDouble(r.nextLong());
            case 1 -> r.nextDouble() * Math.pow(10, r.nextInt(-12, 12));
            default -> (float) r.nextGaussian();
        };
    }

    private static String text(SplittableRandom r) {
        StringBuilder s = new StringBuilder();
        for (int n = r.nextInt(0, 24); n > 0; n--) {
            s.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
        }
        return s.toString();
    }

    /** The line as JsonlSink wrote every metric through Jackson's generator. */
    private static String generatorLine(MetricEvent m) throws IOException {
        StringWriter line = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(line)) {
            g.writeStartObject();
            g.writeNumberField("time", BigDecimal.valueOf(m.wallTimeMillis(), 3));
            g.writeNumberField("elapsed", BigDecimal.valueOf(Math.round(m.elapsedSeconds() * 1000), 3));
            g.writeStringField("stage", m.stage());
            g.writeNumberField("stageIndex", m.stageIndex());
            g.writeNumberField("epoch", m.epoch());
            g.writeNumberField("step", m.step());
            g.writeStringField("name", m.name());
            if (Double.isFinite(m.value())) {
                g.writeNumberField("value", m.value());
            } else {
                g.writeNullField("value");
                g.writeStringField("nonFinite", Double.toString(m.value()));
            }
            if (m.device() != null) {
                g.writeStringField("device", m.device());
            }
            g.writeEndObject();
        }
        return line.toString();
    }
}
