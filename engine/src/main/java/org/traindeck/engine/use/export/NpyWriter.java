package org.traindeck.engine.use.export;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.traindeck.engine.data.numpy.NpyHeaderWriter;

/** One float32 array as an {@code .npy} file: NumPy's header, then the values, little-endian. */
final class NpyWriter {

    private NpyWriter() {}

    static byte[] bytes(NamedTensor t) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, t.bytes() + 128));
        write(t, out);
        return out.toByteArray();
    }

    static void write(NamedTensor t, OutputStream out) throws IOException {
        NpyHeaderWriter.write("<f4", t.shape(), out);
        TensorBytes.write(t.values(), out);
    }
}
