package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The members of a zip file, read from its central directory (zip64 included) and checked against the file: every offset
 * and size must lie inside it and every local header must agree, before anything is mapped or inflated. Hand-written
 * rather than java.util.zip.ZipFile because mapping stored members in place needs each member's data offset.
 */
final class ZipDirectory {

    /** One member; {@code dataOffset} is where its (possibly compressed) bytes start in the zip file. */
    record Member(String name, int method, long crc, long compressedSize, long size, long dataOffset) {}

    private static final int EOCD = 0x06054b50;
    private static final int ZIP64_LOCATOR = 0x07064b50;
    private static final int ZIP64_EOCD = 0x06064b50;
    private static final int CENTRAL = 0x02014b50;
    private static final int LOCAL = 0x04034b50;
    private static final long MAX_DIRECTORY_BYTES = 64L << 20;

    private ZipDirectory() {}

    /** Where the central directory lies: its entry count, size and offset, and the end record's offset. */
    private record Directory(long entries, long size, long offset, long endRecordAt, long end) {}

    static List<Member> read(FileChannel channel, String source) throws IOException {
        Directory d = directory(channel, source);
        if (d.offset() < 0 || d.size() < 0 || d.size() > d.end() - d.offset()) {
            throw new NpyFormatException(
                    source,
                    d.endRecordAt(),
                    "the central directory (" + d.size() + " bytes at " + d.offset() + ") does not fit in the file ("
                            + channel.size() + " bytes): truncated or damaged");
        }
        if (d.size() > MAX_DIRECTORY_BYTES || d.entries() > d.size() / 46) {
            throw new NpyFormatException(
                    source,
                    d.endRecordAt(),
                    "implausible central directory: " + d.entries() + " entries in " + d.size() + " bytes");
        }
        ByteBuffer dir = le(NpyHeaderReader.readFully(channel, d.offset(), (int) d.size(), source));
        List<Member> members = new ArrayList<>();
        int p = 0;
        for (long e = 0; e < d.entries(); e++) {
            p = readEntry(channel, source, dir, p, e, d.offset(), members);
        }
        return members;
    }

    /** Finds the end-of-central-directory record (and its zip64 twin where the 32-bit fields overflow). */
    private static Directory directory(FileChannel channel, String source) throws IOException {
        long fileSize = channel.size();
        if (fileSize < 22) {
            throw new NpyFormatException(source, "only " + fileSize + " bytes long: not a zip (.npz) file");
        }
        int tailLength = (int) Math.min(fileSize, 22 + 0xffff);
        long tailStart = fileSize - tailLength;
        ByteBuffer tail = le(NpyHeaderReader.readFully(channel, tailStart, tailLength, source));
        int at = -1;
        for (int p = tailLength - 22; p >= 0; p--) {
            if (tail.getInt(p) == EOCD && p + 22 + (tail.getShort(p + 20) & 0xffff) == tailLength) {
                at = p;
                break;
            }
        }
        if (at < 0) {
            throw new NpyFormatException(source, "not a zip (.npz) file: no end-of-central-directory record");
        }
        long eocdOffset = tailStart + at;
        if (tail.getShort(at + 4) != 0 || tail.getShort(at + 6) != 0) {
            throw new NpyFormatException(source, eocdOffset, "multi-volume zip files are not supported");
        }
        long entries = tail.getShort(at + 10) & 0xffff;
        long directorySize = tail.getInt(at + 12) & 0xffffffffL;
        long directoryOffset = tail.getInt(at + 16) & 0xffffffffL;
        if (entries == 0xffff || directorySize == 0xffffffffL || directoryOffset == 0xffffffffL) {
            return zip64Directory(channel, source, eocdOffset);
        }
        return new Directory(entries, directorySize, directoryOffset, eocdOffset, eocdOffset);
    }

    private static Directory zip64Directory(FileChannel channel, String source, long eocdOffset) throws IOException {
        ByteBuffer locator =
                eocdOffset < 20 ? null : le(NpyHeaderReader.readFully(channel, eocdOffset - 20, 20, source));
        if (locator == null || locator.getInt(0) != ZIP64_LOCATOR) {
            throw new NpyFormatException(source, eocdOffset, "zip64 sizes without a zip64 locator");
        }
        long zip64At = locator.getLong(8);
        if (zip64At < 0 || zip64At > eocdOffset - 20 - 56) {
            throw new NpyFormatException(
                    source,
                    eocdOffset - 20,
                    "zip64 record offset " + zip64At + " lies outside the file (" + channel.size() + " bytes)");
        }
        ByteBuffer z = le(NpyHeaderReader.readFully(channel, zip64At, 56, source));
        if (z.getInt(0) != ZIP64_EOCD) {
            throw new NpyFormatException(source, zip64At, "no zip64 end-of-central-directory record where promised");
        }
        return new Directory(z.getLong(32), z.getLong(40), z.getLong(48), eocdOffset, zip64At);
    }

    /** Reads central directory entry {@code e} at {@code p}, adds it unless it is a folder; returns the next entry's. */
    private static int readEntry(
            FileChannel channel,
            String source,
            ByteBuffer dir,
            int p,
            long e,
            long directoryOffset,
            List<Member> members)
            throws IOException {
        long entryAt = directoryOffset + p;
        if (p + 46 > dir.limit() || dir.getInt(p) != CENTRAL) {
            throw new NpyFormatException(source, entryAt, "bad central directory entry " + e);
        }
        int flags = dir.getShort(p + 8) & 0xffff;
        int nameLength = dir.getShort(p + 28) & 0xffff;
        int extraLength = dir.getShort(p + 30) & 0xffff;
        int next = p + 46 + nameLength + extraLength + (dir.getShort(p + 32) & 0xffff);
        if (next > dir.limit()) {
            throw new NpyFormatException(source, entryAt, "central directory entry " + e + " runs past the directory");
        }
        byte[] rawName = new byte[nameLength];
        dir.get(p + 46, rawName);
        String name = new String(rawName, (flags & 0x800) != 0 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        long[] sizes = {
            dir.getInt(p + 24) & 0xffffffffL, dir.getInt(p + 20) & 0xffffffffL, dir.getInt(p + 42) & 0xffffffffL
        };
        zip64Extra(dir, p + 46 + nameLength, extraLength, sizes, source, entryAt);
        if (name.endsWith("/")) {
            return next;
        }
        if ((flags & 1) != 0) {
            throw new NpyFormatException(source, entryAt, "member " + name + " is encrypted");
        }
        long crc = dir.getInt(p + 16) & 0xffffffffL;
        long dataOffset = dataOffset(channel, source, name, sizes[2], sizes[1], directoryOffset);
        members.add(new Member(name, dir.getShort(p + 10) & 0xffff, crc, sizes[1], sizes[0], dataOffset));
        return next;
    }

    /** Replaces the 32-bit fields that say 0xFFFFFFFF by the zip64 extra field's values, in the order the format sets. */
    private static void zip64Extra(ByteBuffer dir, int from, int length, long[] sizes, String source, long entryAt)
            throws NpyFormatException {
        boolean needed = sizes[0] == 0xffffffffL || sizes[1] == 0xffffffffL || sizes[2] == 0xffffffffL;
        int p = from;
        while (needed && p + 4 <= from + length) {
            int id = dir.getShort(p) & 0xffff;
            int size = dir.getShort(p + 2) & 0xffff;
            if (id == 0x0001) {
                int q = p + 4;
                for (int k = 0; k < 3; k++) {
                    if (sizes[k] == 0xffffffffL) {
                        if (q + 8 > p + 4 + size || q + 8 > from + length) {
                            throw new NpyFormatException(source, entryAt, "zip64 extra field too short");
                        }
                        sizes[k] = dir.getLong(q);
                        q += 8;
                    }
                }
                return;
            }
            p += 4 + size;
        }
        if (needed) {
            throw new NpyFormatException(source, entryAt, "zip64 sizes without a zip64 extra field");
        }
    }

    private static long dataOffset(
            FileChannel channel, String source, String name, long localAt, long compressed, long directoryOffset)
            throws IOException {
        if (localAt < 0 || localAt > directoryOffset - 30) {
            throw new NpyFormatException(
                    source,
                    localAt,
                    "member " + name + "'s local header offset " + localAt + " lies outside the members' area ("
                            + directoryOffset + " bytes)");
        }
        ByteBuffer local = le(NpyHeaderReader.readFully(channel, localAt, 30, source));
        if (local.getInt(0) != LOCAL) {
            throw new NpyFormatException(
                    source, localAt, "no local header for member " + name + " where the directory says");
        }
        long dataAt = localAt + 30 + (local.getShort(26) & 0xffff) + (local.getShort(28) & 0xffff);
        if (compressed < 0 || dataAt > directoryOffset || compressed > directoryOffset - dataAt) {
            throw new NpyFormatException(
                    source,
                    localAt,
                    "member " + name + " (" + compressed + " bytes from byte " + dataAt
                            + ") runs past the members' area (" + directoryOffset + " bytes): truncated or damaged");
        }
        return dataAt;
    }

    private static ByteBuffer le(ByteBuffer b) {
        return b.order(ByteOrder.LITTLE_ENDIAN);
    }
}
