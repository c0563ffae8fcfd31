package org.traindeck.engine.sinks;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * TFRecord framing as TensorBoard reads it: uint64 length (little-endian), masked CRC32C of the length bytes, the
 * data, masked CRC32C of the data.
 */
public final class TfRecordWriter {

    private final OutputStream out;
    private final ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer footer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);

    public TfRecordWriter(OutputStream out) {
        this.out = out;
    }

    public void write(byte[] data) throws IOException {
        header.clear();
        header.putLong(data.length);
        header.putInt(maskedCrc32c(header.array(), 0, 8));
        out.write(header.array(), 0, 12);
        out.write(data);
        footer.clear();
        footer.putInt(maskedCrc32c(data, 0, data.length));
        out.write(footer.array(), 0, 4);
    }

    public static int maskedCrc32c(byte[] data, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(data, offset, length);
        int value = (int) crc.getValue();
        return ((value >>> 15) | (value << 17)) + 0xa282ead8;
    }
}
