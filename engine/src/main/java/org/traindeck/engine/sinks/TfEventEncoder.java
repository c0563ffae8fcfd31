package org.traindeck.engine.sinks;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Encodes the tensorflow.Event protobuf messages TrainDeck writes, by hand (a protobuf dependency for a few fields is
 * not worth it): the file-version header, scalar and histogram summaries, and session restarts.
 */
public final class TfEventEncoder {

    /** The Event's SessionLog field (6 is the deprecated log_message). */
    private static final int SESSION_LOG = 7;

    private TfEventEncoder() {}

    /** Event{wall_time=1, file_version=3}. */
    public static byte[] fileVersion(double wallTimeSeconds) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(32);
        writeDouble(out, 1, wallTimeSeconds);
        writeBytes(out, 3, "brain.Event:2".getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /**
     * Event{wall_time=1, step=2, summary=5 {value=1 {tag=1, simple_value=2}}}. Written straight into an array of its
     * size: every metric of every step comes here, and the nested streams of the other messages made it a large
     * method for the JIT to compile.
     */
    public static byte[] scalar(double wallTimeSeconds, long step, String tag, float value) {
        byte[] tagBytes = tag.getBytes(StandardCharsets.UTF_8);
        int valueSize = 1 + varintSize(tagBytes.length) + tagBytes.length + 1 + 4;
        int summarySize = 1 + varintSize(valueSize) + valueSize;
        int eventSize = 1 + 8 + 1 + varintSize(step) + 1 + varintSize(summarySize) + summarySize;
        ByteBuffer event = ByteBuffer.allocate(eventSize).order(ByteOrder.LITTLE_ENDIAN);
        event.put(key(1, 1)).putLong(Double.doubleToLongBits(wallTimeSeconds));
        putVarint(event.put(key(2, 0)), step);
        putVarint(event.put(key(5, 2)), summarySize);
        putVarint(event.put(key(1, 2)), valueSize);
        putVarint(event.put(key(1, 2)), tagBytes.length).put(tagBytes);
        event.put(key(2, 5)).putInt(Float.floatToIntBits(value));
        return event.array();
    }

    /** A field's key of one byte (fields 1 to 15). */
    private static byte key(int field, int wireType) {
        return (byte) ((field << 3) | wireType);
    }

    private static int varintSize(long value) {
        int size = 1;
        for (long v = value; (v & ~0x7FL) != 0; v >>>= 7) {
            size++;
        }
        return size;
    }

    private static ByteBuffer putVarint(ByteBuffer out, long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        return out.put((byte) v);
    }

    /**
     * Event{wall_time=1, step=2, summary=5 {value=1 {tag=1, histo=5 HistogramProto}}}, with TensorBoard's
     * HistogramProto{min=1, max=2, num=3, sum=4, sum_squares=5 (doubles), bucket_limit=6, bucket=7 (packed doubles)}:
     * what the Histograms and Distributions tabs read.
     */
    public static byte[] histogram(
            double wallTimeSeconds,
            long step,
            String tag,
            double min,
            double max,
            double num,
            double sum,
            double sumSquares,
            double[] bucketLimits,
            double[] buckets) {
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
        return event(wallTimeSeconds, step, summaryValue);
    }

    /**
     * Event{wall_time=1, step=2, summary=5 {value=1 {tag=1, image=4 Image{height=1, width=2, colorspace=3,
     * encoded_image_string=4}}}}: a picture on TensorBoard's Images tab ({@code colorspace} 1 grey, 3 RGB, 4 RGBA).
     */
    public static byte[] image(
            double wallTimeSeconds, long step, String tag, int height, int width, int colorspace, byte[] png) {
        ByteArrayOutputStream image = new ByteArrayOutputStream(png.length + 16);
        writeVarintField(image, 1, height);
        writeVarintField(image, 2, width);
        writeVarintField(image, 3, colorspace);
        writeBytes(image, 4, png);
        ByteArrayOutputStream summaryValue = new ByteArrayOutputStream(image.size() + tag.length() + 8);
        writeBytes(summaryValue, 1, tag.getBytes(StandardCharsets.UTF_8));
        writeBytes(summaryValue, 4, image.toByteArray());
        return event(wallTimeSeconds, step, summaryValue);
    }

    /**
     * Event{wall_time=1, step=2, summary=5 {value=1 {tag=1, metadata=9 {plugin_data=1 {plugin_name=1 "text"}},
     * tensor=8 TensorProto{dtype=1 DT_STRING (7), tensor_shape=2 {} (a scalar), string_val=8}}}}: what the text
     * plugin's summary writes (its TextPluginData content is version 0, which proto3 leaves out), shown as Markdown.
     */
    public static byte[] text(double wallTimeSeconds, long step, String tag, String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream tensor = new ByteArrayOutputStream(utf8.length + 16);
        writeVarintField(tensor, 1, 7);
        writeBytes(tensor, 2, new byte[0]);
        writeBytes(tensor, 8, utf8);
        ByteArrayOutputStream pluginData = new ByteArrayOutputStream(8);
        writeBytes(pluginData, 1, "text".getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream metadata = new ByteArrayOutputStream(12);
        writeBytes(metadata, 1, pluginData.toByteArray());
        ByteArrayOutputStream summaryValue = new ByteArrayOutputStream(tensor.size() + tag.length() + 24);
        writeBytes(summaryValue, 1, tag.getBytes(StandardCharsets.UTF_8));
        writeBytes(summaryValue, 9, metadata.toByteArray());
        writeBytes(summaryValue, 8, tensor.toByteArray());
        return event(wallTimeSeconds, step, summaryValue);
    }

    /** Event{wall_time=1, step=2, summary=5 {value=1 summaryValue}}. */
    private static byte[] event(double wallTimeSeconds, long step, ByteArrayOutputStream summaryValue) {
        ByteArrayOutputStream summary = new ByteArrayOutputStream(summaryValue.size() + 8);
        writeBytes(summary, 1, summaryValue.toByteArray());
        ByteArrayOutputStream event = new ByteArrayOutputStream(summary.size() + 32);
        writeDouble(event, 1, wallTimeSeconds);
        writeVarintField(event, 2, step);
        writeBytes(event, 5, summary.toByteArray());
        return event.toByteArray();
    }

    /**
     * Event{wall_time=1, step=2, session_log=7 {status=1 START}}: tells TensorBoard that the run restarted after
     * {@code lastKeptStep}, so it drops the points a previous attempt wrote after that step.
     */
    public static byte[] sessionStart(double wallTimeSeconds, long lastKeptStep) {
        ByteArrayOutputStream sessionLog = new ByteArrayOutputStream(4);
        writeVarintField(sessionLog, 1, 1);
        ByteArrayOutputStream event = new ByteArrayOutputStream(32);
        writeDouble(event, 1, wallTimeSeconds);
        // TensorBoard keeps the points before a START's step and drops the rest: the step after the last one kept
        writeVarintField(event, 2, lastKeptStep + 1);
        writeBytes(event, SESSION_LOG, sessionLog.toByteArray());
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
