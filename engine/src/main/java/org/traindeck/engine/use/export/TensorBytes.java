package org.traindeck.engine.use.export;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** float32 values as little-endian bytes, written in bounded chunks so a large tensor needs no second full copy. */
final class TensorBytes {

    private static final int CHUNK_FLOATS = 1 << 16;

    private TensorBytes() {}

    static void write(float[] values, OutputStream out) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(4 * Math.min(CHUNK_FLOATS, Math.max(1, values.length)))
                .order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < values.length; from += CHUNK_FLOATS) {
            int to = Math.min(values.length, from + CHUNK_FLOATS);
            buf.clear();
            buf.asFloatBuffer().put(values, from, to - from);
            out.write(buf.array(), 0, 4 * (to - from));
        }
    }
}
