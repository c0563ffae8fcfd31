package org.traindeck.engine.sinks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the histogram summaries of a TensorBoard event file for the tests, field by field and wire type by wire
 * type as TensorBoard's protos define them: Event{wall_time=1 double, step=2 varint, summary=5}, Summary{value=1},
 * Summary.Value{tag=1 string, histo=5 HistogramProto}, HistogramProto{min=1, max=2, num=3, sum=4, sum_squares=5 (all
 * double, wire type 1), bucket_limit=6, bucket=7 (packed doubles, wire type 2)}. Anything else in a histogram event
 * fails the read.
 */
public final class TfHistogramReader {

    public record Histogram(
            double wallTime,
            long step,
            String tag,
            double min,
            double max,
            double num,
            double sum,
            double sumSquares,
            double[] bucketLimits,
            double[] buckets) {}

    private TfHistogramReader() {}

    public static List<Histogram> read(Path file) throws IOException {
        List<Histogram> out = new ArrayList<>();
        for (byte[] record : TfEventFileReader.records(file)) {
            Histogram h = event(record);
            if (h != null) {
                out.add(h);
            }
        }
        return out;
    }

    /** The event's histogram, or null when it holds none (the header, scalars, session logs). */
    static Histogram event(byte[] record) throws IOException {
        ByteBuffer in = buffer(record);
        double wall = Double.NaN;
        long step = 0;
        byte[] summary = null;
        while (in.hasRemaining()) {
            long key = varint(in);
            int field = (int) (key >>> 3);
            int wire = (int) (key & 7);
            if (field == 1 && wire == 1) {
                wall = in.getDouble();
            } else if (field == 2 && wire == 0) {
                step = varint(in);
            } else if (wire == 2) {
                byte[] b = bytes(in);
                summary = field == 5 ? b : summary;
            } else {
                throw new IOException("unexpected event field " + field + " wire type " + wire);
            }
        }
        if (summary == null) {
            return null;
        }
        ByteBuffer s = buffer(summary);
        expect(s, 1, 2);
        ByteBuffer value = buffer(bytes(s));
        if (s.hasRemaining()) {
            throw new IOException("more than one value in a summary");
        }
        expect(value, 1, 2);
        String tag = new String(bytes(value), StandardCharsets.UTF_8);
        long key = varint(value);
        if (key != ((5 << 3) | 2)) {
            return null; // a scalar (simple_value = 2)
        }
        ByteBuffer histo = buffer(bytes(value));
        double[] scalars = new double[5];
        for (int f = 1; f <= 5; f++) {
            expect(histo, f, 1);
            scalars[f - 1] = histo.getDouble();
        }
        expect(histo, 6, 2);
        double[] limits = packed(bytes(histo));
        expect(histo, 7, 2);
        double[] buckets = packed(bytes(histo));
        if (histo.hasRemaining() || value.hasRemaining()) {
            throw new IOException("unexpected bytes after the histogram of " + tag);
        }
        return new Histogram(
                wall, step, tag, scalars[0], scalars[1], scalars[2], scalars[3], scalars[4], limits, buckets);
    }

    private static void expect(ByteBuffer in, int field, int wire) throws IOException {
        long key = varint(in);
        if (key != (((long) field << 3) | wire)) {
            throw new IOException("expected field " + field + " wire type " + wire + ", found field " + (key >>> 3)
                    + " wire type " + (key & 7));
        }
    }

    private static double[] packed(byte[] bytes) throws IOException {
        if (bytes.length % 8 != 0) {
            throw new IOException("packed doubles of " + bytes.length + " bytes");
        }
        ByteBuffer in = buffer(bytes);
        double[] out = new double[bytes.length / 8];
        for (int i = 0; i < out.length; i++) {
            out[i] = in.getDouble();
        }
        return out;
    }

    private static ByteBuffer buffer(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static byte[] bytes(ByteBuffer in) throws IOException {
        byte[] b = new byte[(int) varint(in)];
        in.get(b);
        return b;
    }

    private static long varint(ByteBuffer in) throws IOException {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.get() & 0xff;
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new IOException("varint too long");
    }
}
