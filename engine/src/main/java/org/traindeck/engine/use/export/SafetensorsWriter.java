package org.traindeck.engine.use.export;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The safetensors format (huggingface/safetensors): an 8-byte little-endian header length, a JSON header naming each
 * tensor's dtype, shape and [begin, end) byte offsets into the data (and string metadata under {@code __metadata__}),
 * padded with spaces to a multiple of 8, then the tensors' raw little-endian bytes back to back.
 */
final class SafetensorsWriter {

    private static final ObjectMapper JSON = new ObjectMapper();

    private SafetensorsWriter() {}

    static void write(List<NamedTensor> tensors, Map<String, String> metadata, OutputStream out) throws IOException {
        ObjectNode header = JSON.createObjectNode();
        ObjectNode meta = header.putObject("__metadata__");
        metadata.forEach(meta::put);
        long offset = 0;
        for (NamedTensor t : tensors) {
            ObjectNode entry = header.putObject(t.name());
            entry.put("dtype", "F32");
            var shape = entry.putArray("shape");
            for (long d : t.shape()) {
                shape.add(d);
            }
            entry.putArray("data_offsets").add(offset).add(offset + t.bytes());
            offset += t.bytes();
        }
        byte[] json = JSON.writeValueAsBytes(header);
        int padded = (json.length + 7) / 8 * 8;
        out.write(ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(padded)
                .array());
        out.write(json);
        out.write(" ".repeat(padded - json.length).getBytes(StandardCharsets.US_ASCII));
        for (NamedTensor t : tensors) {
            TensorBytes.write(t.values(), out);
        }
    }
}
