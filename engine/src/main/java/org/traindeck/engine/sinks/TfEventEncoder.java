package org.traindeck.engine.sinks;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Encodes the tensorflow.Event protobuf messages TrainDeck writes, by hand (a protobuf dependency for a few fields is
 * not worth it): the file-version header, scalar and histogram summaries, and session restarts.
 */
public final class TfEventEncoder {

    private TfEventEncoder() {
    }

    /** Event{wall_time=1, file_version=3}. */
    public static byte[] fileVersion(double wallTimeSeconds) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(32);
        writeDouble(out, 1, wallTimeSeconds);
        writeBytes(out, 3, "brain.Event:2".getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** Event{wall_time=1, step=2, summary=5 {value=1 {tag=1, simple_value=2}}}. */
    public static byte[] scalar(double wallTimeSeconds, long step, String tag, float value) {
        ByteArrayOutputStream summaryValue = new ByteArrayOutputStream(tag.length() + 8);
        writeBytes(summaryValue, 1, tag.getBytes(StandardCharsets.UTF_8));
        writeFloat(summaryValue, 2, value);
        ByteArrayOutputStream summary = new ByteArrayOutputStream(tag.length() + 10);
        writeBytes(summary, 1, summaryValue.toByteArray());
        ByteArrayOutputStream event = new ByteArrayOutputStream(tag.length() + 32);
        writeDouble(event, 1, wallTimeSeconds);
        writeVarintField(event, 2, step);
        writeBytes(event, 5, summary.toByteArray());
        return event.toByteArray();
    }

    /**
     * Event{wall_time=1, step=2, summary=5 {value=1 {tag=1, histo=5 HistogramProto}}}, with TensorBoard's
     * HistogramProto{min=1, max=2, num=3, sum=4, sum_squares=5 (doubles), bucket_limit=6, bucket=7 (packed doubles)}:
     * what the Histograms and Distributions tabs read.
     */
    public static byte[] histogram(double wallTimeSeconds, long step, String tag, double min, double max, double num, double sum,
                                   double sumSquares, double[] bucketLimits, double[] buckets) {
        ByteArrayOutputStream histo = new ByteArrayOutputStream(48 + 16 * buckets.length);
        writeDouble(histo, 1, min);
        writeDouble(histo, 2, max);
        writeDouble(histo, 3, num);
        writeDouble(histo, 4, sum);
        writeDouble(histo, 5, sumSquares);
        writePackedDoubles(histo, 6, bucketLimits);
        writePackedDoubles(histo, 7, buckets);
        ByteArrayOutputStream summaryValue = new ByteArrayOutputStream(histo.size() + tag.length() + 8);
        writeBytes(summaryValue, 1, tag.getBytes(StandardCharsets.UTF_8));
        writeBytes(summaryValue, 5, histo.toByteArray());
        ByteArrayOutputStream summary = new ByteArrayOutputStream(summaryValue.size() + 8);
        writeBytes(summary, 1, summaryValue.toByteArray());
        ByteArrayOutputStream event = new ByteArrayOutputStream(summary.size() + 32);
        writeDouble(event, 1, wallTimeSeconds);
        writeVarintField(event, 2, step);
        writeBytes(event, 5, summary.toByteArray());
        return event.toByteArray();
    }

    /**
     * Event{wall_time=1, step=2, session_log=6 {status=1 START}}: tells TensorBoard that the run restarted at
     * {@code step}, so it drops the points a previous attempt wrote after that step.
     */
    public static byte[] sessionStart(double wallTimeSeconds, long step) {
        ByteArrayOutputStream sessionLog = new ByteArrayOutputStream(4);
        writeVarintField(sessionLog, 1, 1);
        ByteArrayOutputStream event = new ByteArrayOutputStream(32);
        writeDouble(event, 1, wallTimeSeconds);
        writeVarintField(event, 2, step);
        writeBytes(event, 6, sessionLog.toByteArray());
        return event.toByteArray();
    }

    static void writeTag(ByteArrayOutputStream out, int field, int wireType) {
        writeVarint(out, ((long) field << 3) | wireType);
    }

    static void writeVarintField(ByteArrayOutputStream out, int field, long value) {
        writeTag(out, field, 0);
        writeVarint(out, value);
    }

    static void writeDouble(ByteArrayOutputStream out, int field, double value) {
        writeTag(out, field, 1);
        long bits = Double.doubleToLongBits(value);
        for (int i = 0; i < 8; i++) {
            out.write((int) (bits >>> (8 * i)) & 0xff);
        }
    }

    static void writeFloat(ByteArrayOutputStream out, int field, float value) {
        writeTag(out, field, 5);
        int bits = Float.floatToIntBits(value);
        for (int i = 0; i < 4; i++) {
            out.write((bits >>> (8 * i)) & 0xff);
        }
    }

    static void writePackedDoubles(ByteArrayOutputStream out, int field, double[] values) {
        writeTag(out, field, 2);
        writeVarint(out, 8L * values.length);
        for (double v : values) {
            long bits = Double.doubleToLongBits(v);
            for (int i = 0; i < 8; i++) {
                out.write((int) (bits >>> (8 * i)) & 0xff);
            }
        }
    }

    static void writeBytes(ByteArrayOutputStream out, int field, byte[] bytes) {
        writeTag(out, field, 2);
        writeVarint(out, bytes.length);
        out.write(bytes, 0, bytes.length);
    }

    static void writeVarint(ByteArrayOutputStream out, long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }
}
