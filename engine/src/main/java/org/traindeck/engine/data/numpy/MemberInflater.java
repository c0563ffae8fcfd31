package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Inflates one deflated zip member into a file, never writing more than the member declares: a member that inflates
 * beyond its declared size is refused as soon as it does, so a lying directory cannot fill the disk.
 */
final class MemberInflater {

    private static final int CHUNK = 1 << 16;

    private final FileChannel zip;
    private final ZipDirectory.Member m;
    private final String source;
    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32();
    private final byte[] input = new byte[CHUNK];
    private final byte[] output = new byte[CHUNK];
    private long read;
    private long written;
    private boolean dummyGiven;

    private MemberInflater(FileChannel zip, ZipDirectory.Member m, String source) {
        this.zip = zip;
        this.m = m;
        this.source = source;
    }

    static void inflate(FileChannel zip, ZipDirectory.Member m, FileChannel out, String source) throws IOException {
        MemberInflater member = new MemberInflater(zip, m, source);
        try {
            member.inflateInto(out);
        } finally {
            member.inflater.end();
        }
    }

    private void inflateInto(FileChannel out) throws IOException {
        while (!inflater.finished()) {
            if (inflater.needsInput()) {
                feed();
            }
            if (inflater.needsDictionary()) {
                throw new NpyFormatException(
                        source, m.dataOffset(), "member " + m.name() + " needs a preset dictionary");
            }
            int n = inflateChunk();
            crc.update(output, 0, n);
            ByteBuffer chunk = ByteBuffer.wrap(output, 0, n);
            while (chunk.hasRemaining()) {
                out.write(chunk, written + chunk.position());
            }
            written += n;
        }
        if (written != m.size()) {
            throw new NpyFormatException(
                    source,
                    m.dataOffset(),
                    "member " + m.name() + " inflates to " + written + " bytes, but the zip directory declares "
                            + m.size() + ": damaged");
        }
        if (crc.getValue() != m.crc()) {
            throw new NpyFormatException(
                    source, m.dataOffset(), "member " + m.name() + " fails its CRC-32 check: damaged");
        }
    }

    /** Hands the inflater the next compressed chunk, or the one byte past the end that raw inflate may want. */
    private void feed() throws IOException {
        if (read < m.compressedSize()) {
            int n = (int) Math.min(CHUNK, m.compressedSize() - read);
            ByteBuffer in = NpyHeaderReader.readFully(zip, m.dataOffset() + read, n, source);
            System.arraycopy(in.array(), 0, input, 0, n);
            inflater.setInput(input, 0, n);
            read += n;
        } else if (!dummyGiven) {
            inflater.setInput(new byte[1]);
            dummyGiven = true;
        } else {
            throw new NpyFormatException(
                    source,
                    m.dataOffset() + read,
                    "compressed data of member "
                            + m.name() + " ends before the stream does (" + written + " of " + m.size()
                            + " bytes inflated): truncated or damaged");
        }
    }

    /** Inflates into {@code output}; returns how many bytes, refusing any past the member's declared size. */
    private int inflateChunk() throws NpyFormatException {
        // one byte more than declared is enough to catch a member that inflates past its size
        int room = (int) Math.min(output.length, m.size() - written + 1);
        int n;
        try {
            n = inflater.inflate(output, 0, room);
        } catch (DataFormatException e) {
            throw new NpyFormatException(
                    source, m.dataOffset(), "member " + m.name() + " is not valid deflate data: " + e.getMessage());
        }
        if (written + n > m.size()) {
            throw new NpyFormatException(
                    source,
                    m.dataOffset(),
                    "member " + m.name() + " inflates beyond its declared size of " + m.size()
                            + " bytes: refused (zip bomb or damage)");
        }
        return n;
    }
}
