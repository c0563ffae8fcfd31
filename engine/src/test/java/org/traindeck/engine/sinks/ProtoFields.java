package org.traindeck.engine.sinks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An independent protobuf wire-format reader for the tests: a message as its fields by number, each value a Long
 * (varint), a byte[] (length-delimited: a nested message, a string or packed values) or a raw 64- or 32-bit word.
 */
public final class ProtoFields {

    private final Map<Integer, List<Object>> fields;

    private ProtoFields(Map<Integer, List<Object>> fields) {
        this.fields = fields;
    }

    public static ProtoFields parse(byte[] bytes) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        Map<Integer, List<Object>> fields = new LinkedHashMap<>();
        while (in.hasRemaining()) {
            long key = varint(in);
            int number = (int) (key >>> 3);
            Object value = switch ((int) (key & 7)) {
                case 0 -> varint(in);
                case 1 -> in.getLong();
                case 2 -> {
                    byte[] b = new byte[(int) varint(in)];
                    in.get(b);
                    yield b;
                }
                case 5 -> in.getInt();
                default -> throw new IOException("wire type " + (key & 7) + " of field " + number);
            };
            fields.computeIfAbsent(number, n -> new ArrayList<>()).add(value);
        }
        return new ProtoFields(fields);
    }

    public boolean has(int number) {
        return fields.containsKey(number);
    }

    public List<Object> all(int number) {
        return fields.getOrDefault(number, List.of());
    }

    public ProtoFields message(int number) throws IOException {
        return parse((byte[]) single(number));
    }

    public List<ProtoFields> messages(int number) throws IOException {
        List<ProtoFields> out = new ArrayList<>();
        for (Object o : all(number)) {
            out.add(parse((byte[]) o));
        }
        return out;
    }

    public String string(int number) {
        return new String((byte[]) single(number), StandardCharsets.UTF_8);
    }

    public long varint(int number) {
        return (Long) single(number);
    }

    public double doubleValue(int number) {
        return Double.longBitsToDouble((Long) single(number));
    }

    private Object single(int number) {
        List<Object> values = all(number);
        if (values.size() != 1) {
            throw new AssertionError("field " + number + " occurs " + values.size() + " times: " + fields.keySet());
        }
        return values.get(0);
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
