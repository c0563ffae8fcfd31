package org.traindeck.engine.weights;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A safetensors file read as data only: an 8-byte little-endian header length, a JSON header of {name: {dtype, shape,
 * data_offsets}}, then the data. Refused, with the byte offset: a header longer than {@value #MAX_HEADER_BYTES} bytes
 * or than the file, a header that is not such JSON (duplicate names included), a shape whose size disagrees with its
 * byte range, ranges outside the data, overlapping or leaving gaps (the format's own rule, which keeps a file from
 * being two things at once).
 */
final class SafetensorsFile implements TensorFile {

    static final long MAX_HEADER_BYTES = 100L << 20;
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final Map<String, Integer> FLOAT_BYTES = Map.of("F64", 8, "F32", 4, "F16", 2, "BF16", 2);
    private static final Map<String, Integer> OTHER_BYTES =
            Map.of("I64", 8, "I32", 4, "I16", 2, "I8", 1, "U8", 1, "BOOL", 1, "U16", 2, "U32", 4, "U64", 8);

    private record Range(String name, long begin, long end) {}

    private final Path file;
    private final FileChannel channel;
    private final long dataStart;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final Map<String, Range> ranges = new LinkedHashMap<>();
    private final Map<String, String> metadata = new LinkedHashMap<>();

    private SafetensorsFile(Path file, FileChannel channel, long dataStart) {
        this.file = file;
        this.channel = channel;
        this.dataStart = dataStart;
    }

    /** @throws WeightsException naming the file and, where one is to blame, the byte offset */
    static SafetensorsFile open(Path file) {
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new WeightsException(file + " does not exist");
        } catch (IOException e) {
            throw new WeightsException("cannot read " + file + ": " + e.getMessage(), e);
        }
        try {
            long size = channel.size();
            if (size < 8) {
                throw bad(file, 0, "is " + size + " bytes long, shorter than the 8-byte header length");
            }
            long headerLength = readFully(channel, 0, 8).getLong();
            if (headerLength <= 1 || headerLength > MAX_HEADER_BYTES || headerLength > size - 8) {
                throw bad(
                        file,
                        0,
                        "declares a header of " + Long.toUnsignedString(headerLength)
                                + " bytes, but the file has " + (size - 8)
                                + " bytes after the length and a header may have at most "
                                + MAX_HEADER_BYTES + ": not a safetensors file, or a damaged one");
            }
            ByteBuffer header = readFully(channel, 8, (int) headerLength);
            SafetensorsFile f = new SafetensorsFile(file, channel, 8 + headerLength);
            f.readHeader(header.array(), size - 8 - headerLength);
            return f;
        } catch (IOException e) {
            close(channel);
            throw new WeightsException("cannot read " + file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            close(channel);
            throw e;
        }
    }

    private void readHeader(byte[] bytes, long dataBytes) {
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (JsonProcessingException e) {
            long at = e.getLocation() == null ? 0 : Math.max(0, e.getLocation().getByteOffset());
            throw bad(file, 8 + at, "its header is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw bad(file, 8, "its header cannot be read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw bad(file, 8, "its header must be a JSON object {name: {dtype, shape, data_offsets}}");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals("__metadata__")) {
                readMetadata(e.getValue());
            } else {
                readEntry(e.getKey(), e.getValue(), dataBytes);
            }
        }
        checkLayout(dataBytes);
    }

    private void readMetadata(JsonNode meta) {
        if (!meta.isObject()) {
            throw bad(file, 8, "its header's __metadata__ must be an object of strings");
        }
        meta.fields().forEachRemaining(m -> {
            if (!m.getValue().isTextual()) {
                throw bad(file, 8, "its header's __metadata__." + m.getKey() + " must be a string");
            }
            metadata.put(m.getKey(), m.getValue().asText());
        });
    }

    private void readEntry(String name, JsonNode t, long dataBytes) {
        String where = "tensor '" + name + "'";
        if (!t.isObject()
                || !t.path("dtype").isTextual()
                || !t.path("shape").isArray()
                || !t.path("data_offsets").isArray()
                || t.size() != 3) {
            throw bad(file, 8, where + " must be {\"dtype\", \"shape\", \"data_offsets\"} and nothing else");
        }
        String dtype = t.get("dtype").asText();
        Integer itemBytes = FLOAT_BYTES.containsKey(dtype) ? FLOAT_BYTES.get(dtype) : OTHER_BYTES.get(dtype);
        if (itemBytes == null) {
            throw bad(file, 8, where + " has the unknown dtype \"" + dtype + "\"");
        }
        long[] shape = new long[t.get("shape").size()];
        long count = 1;
        for (int i = 0; i < shape.length; i++) {
            JsonNode d = t.get("shape").get(i);
            if (!d.canConvertToLong() || !d.isIntegralNumber() || d.asLong() < 0) {
                throw bad(file, 8, where + ": its shape must be whole numbers ≥ 0, not " + t.get("shape"));
            }
            shape[i] = d.asLong();
            count = shape[i] == 0 ? 0 : multiply(count, shape[i], where);
        }
        JsonNode offsets = t.get("data_offsets");
        if (offsets.size() != 2
                || !offsets.get(0).isIntegralNumber()
                || !offsets.get(1).isIntegralNumber()) {
            throw bad(file, 8, where + ": its data_offsets must be [begin, end], not " + offsets);
        }
        long begin = offsets.get(0).asLong();
        long end = offsets.get(1).asLong();
        if (begin < 0 || end < begin || end > dataBytes) {
            throw bad(
                    file,
                    8,
                    where + ": its data_offsets " + offsets + " lie outside the file's " + dataBytes
                            + " bytes of data");
        }
        if (multiply(count, itemBytes, where) != end - begin) {
            throw bad(
                    file,
                    8,
                    where + " is " + dtype + " of shape " + t.get("shape") + " (" + count * itemBytes
                            + " bytes), but its data_offsets " + offsets + " hold " + (end - begin) + " bytes");
        }
        if (count > Integer.MAX_VALUE - 8) {
            throw bad(file, 8, where + " has " + count + " values, more than one tensor may hold here");
        }
        entries.put(name, new Entry(name, shape, dtype, FLOAT_BYTES.containsKey(dtype)));
        ranges.put(name, new Range(name, begin, end));
    }

    private void checkLayout(long dataBytes) {
        List<Range> sorted = new ArrayList<>(ranges.values());
        sorted.sort(Comparator.comparingLong(Range::begin).thenComparingLong(Range::end));
        long next = 0;
        Range previous = null;
        for (Range r : sorted) {
            if (r.begin() < next) {
                throw bad(
                        file,
                        dataStart + r.begin(),
                        "tensors '" + previous.name() + "' and '" + r.name() + "' overlap (bytes " + r.begin() + " to "
                                + previous.end() + " of the data)");
            }
            if (r.begin() > next) {
                throw bad(
                        file,
                        dataStart + next,
                        "bytes " + next + " to " + r.begin() + " of the data belong to no tensor");
            }
            next = r.end();
            previous = r;
        }
        if (next != dataBytes) {
            throw bad(
                    file, dataStart + next, "bytes " + next + " to " + dataBytes + " of the data belong to no tensor");
        }
    }

    private static long multiply(long a, long b, String where) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw new WeightsException(where + ": its shape is too large");
        }
    }

    Map<String, String> metadata() {
        return metadata;
    }

    @Override
    public String source() {
        return file.toString();
    }

    @Override
    public Map<String, Entry> entries() {
        return entries;
    }

    @Override
    public float[] read(String name) {
        Entry e = entries.get(name);
        Range r = ranges.get(name);
        if (!e.floating()) {
            throw new WeightsException(
                    file + ": tensor '" + name + "' is " + e.dtype() + ", not a floating-point type");
        }
        float[] out = new float[Math.toIntExact(r.end() - r.begin()) / FLOAT_BYTES.get(e.dtype())];
        try {
            ByteBuffer b = readFully(channel, dataStart + r.begin(), Math.toIntExact(r.end() - r.begin()));
            for (int i = 0; i < out.length; i++) {
                out[i] = switch (e.dtype()) {
                    case "F64" -> (float) b.getDouble();
                    case "F32" -> b.getFloat();
                    case "F16" -> HalfFloats.toFloat(b.getShort());
                    default -> Float.intBitsToFloat((b.getShort() & 0xFFFF) << 16);
                };
            }
        } catch (IOException ex) {
            throw new WeightsException("cannot read tensor '" + name + "' of " + file + ": " + ex.getMessage(), ex);
        }
        return out;
    }

    private static ByteBuffer readFully(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (channel.read(b, position + b.position()) < 0) {
                throw new IOException("the file ends at byte " + (position + b.position()));
            }
        }
        return b.flip();
    }

    private static WeightsException bad(Path file, long offset, String problem) {
        return new WeightsException(file + ": byte " + offset + ": " + problem);
    }

    @Override
    public void close() {
        close(channel);
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // read-only: nothing is lost
        }
    }
}
