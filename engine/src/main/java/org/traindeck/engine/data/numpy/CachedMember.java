package org.traindeck.engine.data.numpy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What an inflate-cache file holds: one member of one archive, as the archive was when it was inflated (its real path,
 * size and modification time; the member's name, CRC-32, sizes and offset). The file is the member's {@code .npy}
 * bytes followed by this description, its length and a magic number, so that one rename publishes both at once.
 */
record CachedMember(
        String source,
        long sourceSize,
        long sourceModified,
        String member,
        long crc,
        long size,
        long compressedSize,
        long dataOffset) {

    private static final long MAGIC = 0x5444_4e50_5a43_0001L; // "TDNPZC" and a format version
    private static final int TAIL = Integer.BYTES + Long.BYTES;
    private static final int MAX_DESCRIPTION_BYTES = 1 << 16;

    static CachedMember of(Path archive, ZipDirectory.Member m) throws IOException {
        Path real = archive.toRealPath();
        return new CachedMember(
                real.toString(),
                Files.size(real),
                Files.getLastModifiedTime(real).toMillis(),
                m.name(),
                m.crc(),
                m.size(),
                m.compressedSize(),
                m.dataOffset());
    }

    /** The file name (without suffix) this member is cached under: 128 bits of a SHA-256 of the description. */
    String key() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(description());
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    /** Whether the archive is still the file this member was inflated from (same path, size and modification time). */
    boolean sourceUnchanged() {
        try {
            Path file = Path.of(source);
            return Files.isRegularFile(file)
                    && Files.size(file) == sourceSize
                    && Files.getLastModifiedTime(file).toMillis() == sourceModified;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Appends the description after the member's {@code size} inflated bytes. */
    void writeAfterData(FileChannel out) throws IOException {
        byte[] text = description();
        ByteBuffer tail = ByteBuffer.allocate(text.length + TAIL);
        tail.put(text).putInt(text.length).putLong(MAGIC).flip();
        long at = size;
        while (tail.hasRemaining()) {
            at += out.write(tail, at);
        }
    }

    /**
     * The member a cache file holds, or null when the file is not a complete cache file (too short, no magic number,
     * a description that does not fit the file's length): such a file is never mapped.
     */
    static CachedMember read(Path file) {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            return read(in, file.toString());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** As {@link #read(Path)}, from a file already open. */
    static CachedMember read(FileChannel in, String source) {
        try {
            long length = in.size();
            if (length < TAIL) {
                return null;
            }
            ByteBuffer tail = NpyHeaderReader.readFully(in, length - TAIL, TAIL, source);
            int textLength = tail.getInt(0);
            if (tail.getLong(Integer.BYTES) != MAGIC || textLength <= 0 || textLength > MAX_DESCRIPTION_BYTES) {
                return null;
            }
            long textAt = length - TAIL - textLength;
            if (textAt < 0) {
                return null;
            }
            CachedMember described = parse(
                    NpyHeaderReader.readFully(in, textAt, textLength, source).array());
            return described.size == textAt ? described : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private byte[] description() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(source);
            out.writeLong(sourceSize);
            out.writeLong(sourceModified);
            out.writeUTF(member);
            out.writeLong(crc);
            out.writeLong(size);
            out.writeLong(compressedSize);
            out.writeLong(dataOffset);
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    private static CachedMember parse(byte[] text) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(text))) {
            CachedMember m = new CachedMember(
                    in.readUTF(),
                    in.readLong(),
                    in.readLong(),
                    in.readUTF(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong());
            if (in.available() != 0) {
                throw new IOException("trailing bytes after a cache file's description");
            }
            return m;
        }
    }
}
