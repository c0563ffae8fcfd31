package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@code .npz} archive: a zip of {@code .npy} members, as np.savez (stored) and np.savez_compressed (deflated) write
 * them. Stored members are mapped in place; deflated ones are inflated, within limits that stop zip bombs, into
 * TrainDeck's {@link InflateCache}, once for every archive opened on the same file and every later run, and mapped
 * from there. Arrays belong to the archive: closing it closes them.
 */
public final class NpzArchive implements AutoCloseable {

    /** Deflate cannot compress better than about 1032:1, so a member declaring more than this is lying. */
    static final long MAX_RATIO = 1100;

    public static final long DEFAULT_MAX_INFLATED_BYTES = 16L << 30;

    private final Path file;
    private final FileChannel channel;
    private final Map<String, ZipDirectory.Member> members;
    private final long maxInflatedBytes;
    private final long windowBytes;
    private final InflateCache cache;
    private final Map<String, NpyArray> opened = new HashMap<>();
    private boolean closed;

    private NpzArchive(
            Path file,
            FileChannel channel,
            Map<String, ZipDirectory.Member> members,
            long maxInflatedBytes,
            long windowBytes,
            InflateCache cache) {
        this.file = file;
        this.channel = channel;
        this.members = members;
        this.maxInflatedBytes = maxInflatedBytes;
        this.windowBytes = windowBytes;
        this.cache = cache;
    }

    public static NpzArchive open(Path npzFile) throws IOException {
        return open(npzFile, DEFAULT_MAX_INFLATED_BYTES);
    }

    /** {@code maxInflatedBytes}: the most one deflated member may inflate to (its cache file's size). */
    public static NpzArchive open(Path npzFile, long maxInflatedBytes) throws IOException {
        return open(npzFile, maxInflatedBytes, NpyArray.DEFAULT_WINDOW_BYTES, InflateCache.standard());
    }

    /** Deflated members inflated into the cache folder {@code cacheRoot}. */
    static NpzArchive open(Path npzFile, long maxInflatedBytes, long windowBytes, Path cacheRoot) throws IOException {
        return open(npzFile, maxInflatedBytes, windowBytes, new InflateCache(cacheRoot));
    }

    private static NpzArchive open(Path npzFile, long maxInflatedBytes, long windowBytes, InflateCache cache)
            throws IOException {
        FileChannel channel = FileChannel.open(npzFile, StandardOpenOption.READ);
        try {
            Map<String, ZipDirectory.Member> members = new LinkedHashMap<>();
            for (ZipDirectory.Member m : ZipDirectory.read(channel, npzFile.toString())) {
                if (!m.name().endsWith(".npy")) {
                    continue;
                }
                String name = m.name().substring(0, m.name().length() - 4);
                if (members.put(name, m) != null) {
                    throw new NpyFormatException(
                            npzFile.toString(), m.dataOffset(), "holds two members named " + m.name() + ": ambiguous");
                }
            }
            return new NpzArchive(npzFile, channel, members, maxInflatedBytes, windowBytes, cache);
        } catch (IOException | RuntimeException | Error e) {
            channel.close();
            throw e;
        }
    }

    /** The arrays' names, as given to np.savez (without {@code .npy}), in archive order; other members are left out. */
    public List<String> names() {
        return new ArrayList<>(members.keySet());
    }

    /** The array saved under {@code name}; opened once and shared, valid until the archive is closed. */
    public synchronized NpyArray array(String name) throws IOException {
        if (closed) {
            throw new IllegalStateException(file + " is closed");
        }
        NpyArray a = opened.get(name);
        if (a != null && !a.isClosed()) {
            return a;
        }
        ZipDirectory.Member m = members.get(name);
        if (m == null) {
            throw new IllegalArgumentException(file + " has no array named '" + name + "' (it has " + names() + ")");
        }
        a = open(m);
        opened.put(name, a);
        return a;
    }

    private NpyArray open(ZipDirectory.Member m) throws IOException {
        String source = file + " member " + m.name();
        if (m.method() == 0) {
            if (m.compressedSize() != m.size()) {
                throw new NpyFormatException(
                        file.toString(),
                        m.dataOffset(),
                        "stored member " + m.name() + " declares " + m.compressedSize() + " bytes stored but "
                                + m.size() + " bytes of content");
            }
            return NpyArray.open(channel, m.dataOffset(), m.size(), source, windowBytes, null);
        }
        if (m.method() != 8) {
            throw new NpyFormatException(
                    file.toString(),
                    m.dataOffset(),
                    "member " + m.name() + " uses zip compression" + " method " + m.method()
                            + "; only stored (np.savez) and deflated (np.savez_compressed) are read");
        }
        checkDeclaredSize(m);
        FileChannel inflated = cache.open(file, channel, m);
        try {
            return NpyArray.open(inflated, 0, m.size(), source, windowBytes, inflated);
        } catch (IOException | RuntimeException | Error e) {
            inflated.close();
            throw e;
        }
    }

    private void checkDeclaredSize(ZipDirectory.Member m) throws IOException {
        if (m.size() > maxInflatedBytes) {
            throw new NpyFormatException(
                    file.toString(),
                    m.dataOffset(),
                    "member " + m.name() + " declares "
                            + m.size() + " bytes when inflated, over the limit of " + maxInflatedBytes
                            + " bytes (NpzArchive.open(path, maxInflatedBytes) sets it; np.savez without compression is mapped"
                            + " in place instead)");
        }
        if (m.size() / MAX_RATIO > Math.max(m.compressedSize(), 1)) {
            throw new NpyFormatException(
                    file.toString(),
                    m.dataOffset(),
                    "member " + m.name() + " declares "
                            + m.size() + " bytes inflated from " + m.compressedSize() + " compressed, a ratio over "
                            + MAX_RATIO + ":1 that deflate cannot reach: refused as a zip bomb");
        }
    }

    /** Closes every array taken from the archive and the zip; inflated members stay in the cache for the next use. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        IOException first = null;
        for (NpyArray a : opened.values()) {
            try {
                a.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        opened.clear();
        channel.close();
        if (first != null) {
            throw first;
        }
    }
}
