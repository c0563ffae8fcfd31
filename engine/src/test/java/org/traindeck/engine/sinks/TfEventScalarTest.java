package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The scalar event written straight into its array has the bytes of the message built field by field. */
class TfEventScalarTest {

    @Test
    void scalarHasTheBytesOfTheNestedMessages() {
        String[] tags = {"", "train/loss", "samples/s/cpu:1", "é/ü/µ", "x".repeat(200), "t".repeat(20_000)};
        long[] steps = {0, 1, 127, 128, 16_383, 16_384, 1L << 40, Long.MAX_VALUE, -1};
        float[] values = {
            0f,
            -0f,
            1.5f,
            -3.25e-9f,
            Float.NaN,
            Float.intBitsToFloat(0x7fc00001),
            Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY,
            Float.MIN_VALUE
        };
        double[] times = {0, 1_764_460_800.123, Double.NaN, -1.5};
        for (String tag : tags) {
            for (long step : steps) {
                for (float value : values) {
                    for (double time : times) {
                        assertThat(TfEventEncoder.scalar(time, step, tag, value))
                                .as("%s %d %s %s", tag.length(), step, value, time)
                                .isEqualTo(fieldByField(time, step, tag, value));
                    }
                }
            }
        }
    }

    private static byte[] fieldByField(double wallTimeSeconds, long step, String tag, float value) {
        ByteArrayOutputStream summaryValue = new ByteArrayOutputStream();
        TfEventEncoder.writeBytes(summaryValue, 1, tag.getBytes(StandardCharsets.UTF_8));
        TfEventEncoder.writeFloat(summaryValue, 2, value);
        ByteArrayOutputStream summary = new ByteArrayOutputStream();
        TfEventEncoder.writeBytes(summary, 1, summaryValue.toByteArray());
        ByteArrayOutputStream event = new ByteArrayOutputStream();
        TfEventEncoder.writeDouble(event, 1, wallTimeSeconds);
        TfEventEncoder.writeVarintField(event, 2, step);
        TfEventEncoder.writeBytes(event, 5, summary.toByteArray());
        return event.toByteArray();
    }
}
