package org.traindeck.engine.library.tfevents;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.sinks.TfEventFileReader;

/**
 * Event files written from the format itself, as TensorFlow's and PyTorch's writers lay them out (Debian has no
 * tensorboard package, so torch.utils.tensorboard cannot write them here): TFRecord framing with CRC32C computed bit by
 * bit (not the reader's java.util.zip.CRC32C), and hand-encoded protobuf.
 */
public final class EventFixtures {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** The byte each record written so far starts at. */
    public final List<Integer> recordOffsets = new ArrayList<>();

    /** PyTorch's and TensorFlow's names: events.out.tfevents.<10-digit seconds>.<host>.<pid>.<n>[suffix]. */
    public static String fileName(long seconds, String suffix) {
        return String.format("events.out.tfevents.%010d.fixture-host.4242.0%s", seconds, suffix);
    }

    public EventFixtures record(byte[] data) {
        recordOffsets.add(out.size());
        byte[] length = littleEndian(data.length, 8);
        out.writeBytes(length);
        out.writeBytes(littleEndian(TfEventFileReader.masked(TfEventFileReader.crc32c(length)), 4));
        out.writeBytes(data);
        out.writeBytes(littleEndian(TfEventFileReader.masked(TfEventFileReader.crc32c(data)), 4));
        return this;
    }

    /** The first record of every file: Event{wall_time, file_version "brain.Event:2"}. */
    public EventFixtures fileVersion(double wallTime) {
        Proto e = new Proto().fixed64(1, Double.doubleToLongBits(wallTime)).string(3, "brain.Event:2");
        return record(e.bytes());
    }

    /** PyTorch's add_scalar (and TF1): Summary.Value{tag, simple_value}. */
    public EventFixtures simpleValue(double wallTime, long step, String tag, float value) {
        return summary(wallTime, step, new Proto().string(1, tag).fixed32(2, Float.floatToIntBits(value)));
    }

    /** Several tags in one event, as TF1's merged summaries write them. */
    public EventFixtures simpleValues(double wallTime, long step, String[] tags, float[] values) {
        Proto summary = new Proto();
        for (int i = 0; i < tags.length; i++) {
            summary.message(1, new Proto().string(1, tags[i]).fixed32(2, Float.floatToIntBits(values[i])));
        }
        Proto e = new Proto()
                .fixed64(1, Double.doubleToLongBits(wallTime))
                .varint(2, step)
                .message(5, summary);
        return record(e.bytes());
    }

    /**
     * PyTorch's add_scalar(new_style=True): tensor{dtype DT_FLOAT, float_val packed}, metadata{plugin_data{plugin_name
     * "scalars"}}.
     */
    public EventFixtures floatValTensor(double wallTime, long step, String tag, float value) {
        Proto tensor = new Proto().varint(1, 1).packedFloat(5, value);
        return summary(
                wallTime, step, new Proto().string(1, tag).message(8, tensor).message(9, scalarsPlugin(false)));
    }

    /** TF2's tf.summary.scalar: tensor{dtype DT_FLOAT, tensor_shape {}, tensor_content 4 bytes}, data_class SCALAR. */
    public EventFixtures tensorContent(double wallTime, long step, String tag, float value) {
        Proto tensor =
                new Proto().varint(1, 1).message(2, new Proto()).bytes(4, littleEndian(Float.floatToIntBits(value), 4));
        return summary(
                wallTime,
                step,
                new Proto().string(1, tag).message(9, scalarsPlugin(true)).message(8, tensor));
    }

    /** TF2's tf.summary.histogram: a [2, 3] float tensor (not a scalar: skipped). */
    public EventFixtures histogramTensor(double wallTime, long step, String tag) {
        Proto shape = new Proto().message(2, new Proto().varint(1, 2)).message(2, new Proto().varint(1, 3));
        Proto tensor = new Proto().varint(1, 1).message(2, shape).bytes(4, new byte[24]);
        Proto plugin = new Proto().message(1, new Proto().string(1, "histograms"));
        return summary(
                wallTime, step, new Proto().string(1, tag).message(9, plugin).message(8, tensor));
    }

    /** The text plugin's summary: a DT_STRING scalar tensor (skipped). */
    public EventFixtures textTensor(double wallTime, long step, String tag, String text) {
        Proto tensor = new Proto().varint(1, 7).message(2, new Proto()).string(8, text);
        Proto plugin = new Proto().message(1, new Proto().string(1, "text"));
        return summary(
                wallTime, step, new Proto().string(1, tag).message(9, plugin).message(8, tensor));
    }

    /** An old-style histogram (Summary.Value.histo, field 5): skipped. */
    public EventFixtures histo(double wallTime, long step, String tag) {
        Proto histo = new Proto().fixed64(1, Double.doubleToLongBits(-1)).fixed64(2, Double.doubleToLongBits(1));
        return summary(wallTime, step, new Proto().string(1, tag).message(5, histo));
    }

    /** Event{session_log{status START}} at {@code step}: a restart there. */
    public EventFixtures sessionStart(double wallTime, long step) {
        Proto e = new Proto()
                .fixed64(1, Double.doubleToLongBits(wallTime))
                .varint(2, step)
                .message(7, new Proto().varint(1, 1));
        return record(e.bytes());
    }

    private EventFixtures summary(double wallTime, long step, Proto value) {
        Proto e = new Proto()
                .fixed64(1, Double.doubleToLongBits(wallTime))
                .varint(2, step)
                .message(5, new Proto().message(1, value));
        return record(e.bytes());
    }

    private static Proto scalarsPlugin(boolean dataClass) {
        Proto metadata = new Proto().message(1, new Proto().string(1, "scalars").bytes(2, new byte[0]));
        return dataClass ? metadata.varint(4, 1) : metadata;
    }

    public byte[] bytes() {
        return out.toByteArray();
    }

    public Path writeTo(Path folder, String name) throws IOException {
        Files.createDirectories(folder);
        return Files.write(folder.resolve(name), bytes(), StandardOpenOption.CREATE_NEW);
    }

    static byte[] littleEndian(long v, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    /** A protobuf message written field by field. */
    static final class Proto {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Proto varint(int field, long v) {
            key(field, 0);
            raw(v);
            return this;
        }

        Proto fixed64(int field, long v) {
            key(field, 1);
            out.writeBytes(littleEndian(v, 8));
            return this;
        }

        Proto fixed32(int field, int v) {
            key(field, 5);
            out.writeBytes(littleEndian(v, 4));
            return this;
        }

        Proto bytes(int field, byte[] b) {
            key(field, 2);
            raw(b.length);
            out.writeBytes(b);
            return this;
        }

        Proto string(int field, String s) {
            return bytes(field, s.getBytes(StandardCharsets.UTF_8));
        }

        Proto message(int field, Proto m) {
            return bytes(field, m.bytes());
        }

        Proto packedFloat(int field, float... values) {
            ByteArrayOutputStream packed = new ByteArrayOutputStream();
            for (float v : values) {
                packed.writeBytes(littleEndian(Float.floatToIntBits(v), 4));
            }
            return bytes(field, packed.toByteArray());
        }

        byte[] bytes() {
            return out.toByteArray();
        }

        private void key(int field, int wire) {
            raw(((long) field << 3) | wire);
        }

        private void raw(long v) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
        }
    }
}
