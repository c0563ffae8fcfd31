package org.traindeck.engine.sinks;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An independent reader of TensorBoard event files for the tests: checks every record's framing and both CRCs
 * (computed here bit by bit, not with java.util.zip.CRC32C) and decodes the protobuf fields TensorBoard uses.
 */
public final class TfEventFileReader {

    /** A decoded event: a file_version header or a scalar (histograms, images and texts are left out). */
    public record Event(double wallTime, long step, String fileVersion, String tag, Float value) {}

    private TfEventFileReader() {}

    public static List<Event> read(Path file) throws IOException {
        List<Event> events = new ArrayList<>();
        for (byte[] data : records(file)) {
            Event e = decodeEvent(data);
            if (e != null) {
                events.add(e);
            }
        }
        return events;
    }

    /** Every record's data, each with its framing and both CRCs checked. */
    public static List<byte[]> records(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        List<byte[]> records = new ArrayList<>();
        while (in.hasRemaining()) {
            if (in.remaining() < 12) {
                throw new EOFException("truncated record header at byte " + in.position());
            }
            byte[] lengthBytes = new byte[8];
            in.get(lengthBytes);
            long length =
                    ByteBuffer.wrap(lengthBytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
            int lengthCrc = in.getInt();
            if (lengthCrc != masked(crc32c(lengthBytes))) {
                throw new IOException("bad length CRC at byte " + (in.position() - 12));
            }
            byte[] data = new byte[(int) length];
            in.get(data);
            int dataCrc = in.getInt();
            if (dataCrc != masked(crc32c(data))) {
                throw new IOException("bad data CRC at byte " + in.position());
            }
            records.add(data);
        }
        return records;
    }

    /** Reference CRC32C (Castagnoli, reflected polynomial 0x82F63B78), one bit at a time. */
    public static int crc32c(byte[] data) {
        int crc = 0xFFFFFFFF;
        for (byte b : data) {
            crc ^= b & 0xff;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x82F63B78 : crc >>> 1;
            }
        }
        return ~crc;
    }

    public static int masked(int crc) {
        return ((crc >>> 15) | (crc << 17)) + 0xa282ead8;
    }

    private static Event decodeEvent(byte[] data) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        double wall = 0;
        long step = 0;
        String version = null;
        String tag = null;
        Float value = null;
        while (in.available() > 0) {
            long key = varint(in);
            int field = (int) (key >>> 3);
            int wire = (int) (key & 7);
            if (field == 1 && wire == 1) {
                wall = Double.longBitsToDouble(Long.reverseBytes(in.readLong()));
            } else if (field == 2 && wire == 0) {
                step = varint(in);
            } else if (field == 3 && wire == 2) {
                version = new String(bytes(in), StandardCharsets.UTF_8);
            } else if (field == 5 && wire == 2) {
                DataInputStream summary = new DataInputStream(new ByteArrayInputStream(bytes(in)));
                long k = varint(summary);
                if (k != ((1 << 3) | 2)) {
                    throw new IOException("summary without value");
                }
                DataInputStream v = new DataInputStream(new ByteArrayInputStream(bytes(summary)));
                while (v.available() > 0) {
                    long vk = varint(v);
                    if (vk == ((1 << 3) | 2)) {
                        tag = new String(bytes(v), StandardCharsets.UTF_8);
                    } else if (vk == ((2 << 3) | 5)) {
                        value = Float.intBitsToFloat(Integer.reverseBytes(v.readInt()));
                    } else if ((vk & 7) == 2 && (vk >>> 3) >= 4 && (vk >>> 3) <= 9) {
                        bytes(v); // a histogram, image, audio, tensor or its metadata: read by their own tests
                        return null;
                    } else {
                        throw new IOException("unexpected summary value field " + vk);
                    }
                }
            } else {
                throw new IOException("unexpected event field " + field + " wire type " + wire);
            }
        }
        return new Event(wall, step, version, tag, value);
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        byte[] b = new byte[(int) varint(in)];
        in.readFully(b);
        return b;
    }

    private static long varint(DataInputStream in) throws IOException {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new IOException("varint too long");
    }
}
