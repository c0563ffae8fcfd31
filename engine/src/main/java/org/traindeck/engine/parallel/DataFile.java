package org.traindeck.engine.parallel;

import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * A data file (or an image folder) as one machine sees it: its size and a fingerprint of its content, so that a node
 * whose copy differs from the driver's is caught before training rather than training on other data. A file's
 * fingerprint covers all of its bytes ({@link FileFingerprints}: fast, and cached by size and modification time); a
 * folder's, every file's name and size.
 *
 * @param path        absolute, as every node must reach it
 * @param bytes       the file's size (a folder: its files' total)
 * @param fingerprint hex digest
 */
public record DataFile(String path, long bytes, String fingerprint) implements Serializable {

    /** Reads {@code path} as this machine sees it, its fingerprint from the user's cache when the file is unchanged. */
    public static DataFile read(Path path) throws IOException {
        return read(path, FileFingerprints.standard());
    }

    /** Reads {@code path} as this machine sees it, with {@code fingerprints}. */
    public static DataFile read(Path path, FileFingerprints fingerprints) throws IOException {
        if (Files.isDirectory(path)) {
            return folder(path);
        }
        if (!Files.exists(path)) {
            throw new NoSuchFileException(path.toString(), null, "no such file");
        }
        return new DataFile(path.toString(), Files.size(path), fingerprints.of(path));
    }

    private static DataFile folder(Path dir) throws IOException {
        MessageDigest digest = sha256();
        long total = 0;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : files) {
            long size = Files.size(f);
            total += size;
            digest.update((dir.relativize(f) + "\0" + size + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return new DataFile(dir.toString(), total, HexFormat.of().formatHex(digest.digest(), 0, 12));
    }

    /**
     * How this machine's view of the file differs from {@code this} (the driver's), or null when it is the same.
     * The answer names the path and says what to do.
     */
    public String problemHere() {
        DataFile here;
        try {
            here = read(Path.of(path));
        } catch (NoSuchFileException e) {
            return "cannot read " + path + " (no such file or folder)";
        } catch (IOException | RuntimeException e) {
            return "cannot read " + path + " (" + e + ")";
        }
        if (here.bytes != bytes) {
            return "sees " + path + " with " + here.bytes + " bytes, the driver with " + bytes;
        }
        if (!here.fingerprint.equals(fingerprint)) {
            return "sees " + path + " with other content than the driver (same size, " + bytes + " bytes)";
        }
        return null;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
