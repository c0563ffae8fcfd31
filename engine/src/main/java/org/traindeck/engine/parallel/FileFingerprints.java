package org.traindeck.engine.parallel;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.config.DataHome;

/**
 * Fingerprints of whole data files: a CRC32C of every MiB (hardware-accelerated, so a file costs about one read),
 * the blocks' checksums digested with SHA-256. Each is kept in a cache file under its path, size and modification
 * time, so that a large file costs a full read only when it changed, not at every start on every machine.
 */
public final class FileFingerprints {

    private static final Logger LOG = LoggerFactory.getLogger(FileFingerprints.class);
    private static final int BLOCK = 1 << 20;
    /** A file modified this recently may change again within the same time stamp: it is hashed, never cached. */
    private static final long SETTLED_MILLIS = 3000;

    private static final class Standard {
        static final FileFingerprints INSTANCE =
                new FileFingerprints(DataHome.folder().resolve("cache").resolve("fingerprints.properties"));
    }

    private final Path cacheFile;

    /** {@code cacheFile}: where the fingerprints are kept (created on first use). */
    public FileFingerprints(Path cacheFile) {
        this.cacheFile = cacheFile;
    }

    /** The cache in the user's TrainDeck data folder. */
    public static FileFingerprints standard() {
        return Standard.INSTANCE;
    }

    /** {@code file}'s fingerprint, from the cache when its size and modification time are those cached. */
    public synchronized String of(Path file) throws IOException {
        Path abs = file.toAbsolutePath().normalize();
        long size = Files.size(abs);
        long modified = Files.getLastModifiedTime(abs).to(TimeUnit.MICROSECONDS);
        String stamp = size + " " + modified + " ";
        Properties cache = load();
        String cached = cache.getProperty(abs.toString());
        if (cached != null && cached.startsWith(stamp)) {
            return cached.substring(stamp.length());
        }
        String fingerprint = hash(abs, size);
        if (System.currentTimeMillis() - modified / 1000 > SETTLED_MILLIS) {
            cache.setProperty(abs.toString(), stamp + fingerprint);
            store(cache);
        }
        return fingerprint;
    }

    static String hash(Path file, long size) throws IOException {
        MessageDigest digest = sha256();
        digest.update(ByteBuffer.allocate(Long.BYTES).putLong(size).flip());
        ByteBuffer block = ByteBuffer.allocateDirect(BLOCK);
        ByteBuffer crcBytes = ByteBuffer.allocate(Integer.BYTES);
        CRC32C crc = new CRC32C();
        try (FileChannel ch = FileChannel.open(file)) {
            while (true) {
                block.clear();
                while (block.hasRemaining() && ch.read(block) >= 0) {
                    // fill the whole block, so that the blocks do not depend on how the reads were split
                }
                if (block.position() == 0) {
                    break;
                }
                block.flip();
                crc.reset();
                crc.update(block);
                digest.update(crcBytes.clear().putInt((int) crc.getValue()).flip());
            }
        }
        return HexFormat.of().formatHex(digest.digest(), 0, 12);
    }

    private Properties load() {
        Properties p = new Properties();
        if (Files.exists(cacheFile)) {
            try (InputStream in = Files.newInputStream(cacheFile)) {
                p.load(in);
            } catch (IOException | IllegalArgumentException e) {
                LOG.debug("fingerprint cache {} unreadable, starting it again: {}", cacheFile, e.toString());
                p.clear();
            }
        }
        return p;
    }

    /** Best effort: a cache that cannot be written only costs a full read next time. */
    private void store(Properties cache) {
        try {
            Files.createDirectories(cacheFile.getParent());
            Path tmp = Files.createTempFile(cacheFile.getParent(), "fingerprints", ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                cache.store(out, "TrainDeck data file fingerprints: path = size, modified (microseconds), fingerprint");
            }
            try {
                Files.move(tmp, cacheFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, cacheFile, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            LOG.debug("cannot write the fingerprint cache {}: {}", cacheFile, e.toString());
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
