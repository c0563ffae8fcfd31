package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.traindeck.engine.config.DataHome;

/**
 * Where deflated {@code .npz} members are inflated: a folder of TrainDeck's own ({@code <data home>/cache/npz} in
 * use), one file per member, named after the archive's fingerprint (its real path, size and modification time, and the
 * member's name, CRC-32 and sizes: {@link CachedMember}). A member is inflated once, then mapped by every archive
 * opened on the same file, in this run and in later ones. A file is written under a part name that holds the writer's
 * pid and renamed only when complete and flushed, so a writer killed half way leaves a part file that is never read
 * and that the next start removes ({@link #clean}), with the entries whose archive changed or went, or that went unused
 * too long or overflow the size cap. Nothing is written to the system's temporary folder.
 */
public final class InflateCache {

    /** How long an unused member is kept, and the most the cache may hold: past it, the least recently used go. */
    public record Limits(Duration maxUnused, long maxBytes) {
        public static final Limits DEFAULT = new Limits(Duration.ofDays(14), 32L << 30);
    }

    static final String ENTRY_SUFFIX = ".npy";
    static final String PART_MARK = ".part-";
    private static final AtomicLong PARTS = new AtomicLong();

    private final Path root;

    /** {@code root}: the cache folder (created on first use). */
    public InflateCache(Path root) {
        this.root = root;
    }

    /** The cache in the user's TrainDeck data folder. */
    public static InflateCache standard() {
        return new InflateCache(DataHome.folder().resolve("cache").resolve("npz"));
    }

    public Path root() {
        return root;
    }

    /**
     * Removes what a killed writer left, entries whose archive changed or went, entries unused longer than the
     * limit, and the least recently used ones past the size cap; returns the files removed and never throws.
     */
    public List<Path> clean(Limits limits) {
        return InflateCacheSweep.sweep(root, limits);
    }

    /**
     * The cache file holding member {@code m} of {@code archive} (its {@code .npy} bytes first), open for reading: the
     * one already there when complete and made from this very archive, else inflated now from {@code zip}. Open
     * before anything can remove it, so a sweep by another process cannot take it away from under this one.
     */
    FileChannel open(Path archive, FileChannel zip, ZipDirectory.Member m) throws IOException {
        CachedMember wanted = CachedMember.of(archive, m);
        Path entry = root.resolve(wanted.key() + ENTRY_SUFFIX);
        FileChannel reused = openIfComplete(entry, wanted);
        if (reused != null) {
            markUsed(entry);
            return reused;
        }
        createRoot(archive, m);
        checkFreeSpace(archive, m);
        Path part =
                root.resolve(wanted.key() + PART_MARK + ProcessHandle.current().pid() + "-" + PARTS.incrementAndGet());
        FileChannel out;
        try {
            out = FileChannel.open(
                    part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new IOException(
                    "cannot inflate " + archive + " member " + m.name() + " into the cache folder " + root + " (" + e
                            + ")",
                    e);
        }
        try {
            MemberInflater.inflate(zip, m, out, archive.toString());
            wanted.writeAfterData(out);
            // on disk before the rename publishes it, so that a crash cannot leave a named but hollow member
            out.force(true);
        } catch (IOException | RuntimeException | Error e) {
            out.close();
            Files.deleteIfExists(part);
            throw e;
        }
        try {
            Files.move(part, entry, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return out;
        } catch (IOException e) {
            out.close();
            Files.deleteIfExists(part);
            // where a mapped file cannot be replaced (Windows), another process's complete copy is as good as ours
            FileChannel theirs = openIfComplete(entry, wanted);
            if (theirs == null) {
                throw e;
            }
            return theirs;
        }
    }

    /** The entry open for reading when it is complete and holds {@code wanted}; null otherwise. */
    private static FileChannel openIfComplete(Path entry, CachedMember wanted) throws IOException {
        FileChannel in;
        try {
            in = FileChannel.open(entry, StandardOpenOption.READ);
        } catch (IOException e) {
            // absent or unreadable: inflated again, and making the folder says what is wrong with it
            return null;
        }
        if (wanted.equals(CachedMember.read(in, entry.toString()))) {
            return in;
        }
        in.close();
        return null;
    }

    private void createRoot(Path archive, ZipDirectory.Member m) throws IOException {
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new IOException(
                    "cannot inflate " + archive + " member " + m.name() + ": cannot make the cache folder " + root
                            + " (" + e + ")",
                    e);
        }
    }

    private void checkFreeSpace(Path archive, ZipDirectory.Member m) throws IOException {
        long free = Files.getFileStore(root).getUsableSpace();
        if (m.size() > free) {
            throw new NpyFormatException(
                    archive.toString(),
                    m.dataOffset(),
                    "member " + m.name() + " inflates to " + m.size() + " bytes but " + root + " has only " + free
                            + " bytes free");
        }
    }

    /** The modification time of an entry is when it was last used: the sweep's age and size limits go by it. */
    private static void markUsed(Path entry) {
        try {
            Files.setLastModifiedTime(entry, FileTime.fromMillis(System.currentTimeMillis()));
        } catch (IOException e) {
            // a read-only cache still serves; its entries only age sooner
        }
    }
}
