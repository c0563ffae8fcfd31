package org.traindeck.engine.library.tfevents;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Reads TFRecord framing one record at a time: uint64 length (little-endian), masked CRC32C of those 8 bytes, the
 * data, masked CRC32C of the data. Both checksums are checked; a record that the file ends inside of (a writer still
 * writing, or one killed mid-write) ends the read quietly and is reported, anything else wrong is an error at its byte.
 */
final class TfRecordReader {

    /** Told each record's data and the byte its framing starts at. */
    interface RecordHandler {
        void record(byte[] data, long offset) throws IOException;
    }

    private TfRecordReader() {}

    /**
     * Reads every whole record of {@code file}.
     *
     * @return -1, or the byte at which an incomplete last record starts (left out)
     */
    static long read(Path file, long maxRecordBytes, RecordHandler handler) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            long offset = 0;
            byte[] header = new byte[12];
            while (true) {
                int got = in.readNBytes(header, 0, 12);
                if (got == 0) {
                    return -1;
                }
                if (got < 12) {
                    return offset;
                }
                long length = littleEndian(header, 0, 8);
                if (maskedCrc32c(header, 0, 8) != (int) littleEndian(header, 8, 4)) {
                    throw new EventFileException(
                            file, offset, "the record's length checksum does not match (the file is damaged)");
                }
                if (length < 0 || length > maxRecordBytes) {
                    throw new EventFileException(
                            file,
                            offset,
                            "a record of " + Long.toUnsignedString(length) + " bytes, more than the " + maxRecordBytes
                                    + " an event file is read with (refused)");
                }
                byte[] data = in.readNBytes((int) length);
                byte[] footer = in.readNBytes(4);
                if (data.length < length || footer.length < 4) {
                    return offset;
                }
                if (maskedCrc32c(data, 0, data.length) != (int) littleEndian(footer, 0, 4)) {
                    throw new EventFileException(
                            file, offset, "the record's data checksum does not match (the file is damaged)");
                }
                handler.record(data, offset);
                offset += 16 + length;
            }
        }
    }

    private static long littleEndian(byte[] b, int from, int n) {
        long v = 0;
        for (int i = from + n - 1; i >= from; i--) {
            v = (v << 8) | (b[i] & 0xff);
        }
        return v;
    }

    static int maskedCrc32c(byte[] data, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(data, offset, length);
        int value = (int) crc.getValue();
        return ((value >>> 15) | (value << 17)) + 0xa282ead8;
    }
}
