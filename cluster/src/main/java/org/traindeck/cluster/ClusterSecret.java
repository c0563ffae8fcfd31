package org.traindeck.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import org.traindeck.engine.api.Engine;

/**
 * The cluster's shared secret (Spark's {@code spark.authenticate}): 256 random bits, in a file only its owner can
 * read. The master generates it; workers and drivers are given a copy of the file.
 */
public final class ClusterSecret {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private ClusterSecret() {}

    /** ~/.local/share/traindeck/cluster/secret */
    public static Path defaultFile() {
        return Engine.dataHome().resolve("cluster").resolve("secret");
    }

    /** Writes a new secret to {@code file}, readable by its owner only (created so, never widened on the way). */
    public static String generate(Path file) throws IOException {
        byte[] bits = new byte[32];
        new SecureRandom().nextBytes(bits);
        String secret = HexFormat.of().formatHex(bits);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.deleteIfExists(file);
        if (posix()) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } else {
            Files.createFile(file);
        }
        Files.writeString(file, secret + "\n", StandardCharsets.US_ASCII);
        return secret;
    }

    /**
     * Reads the secret, refusing a missing, empty or group/world-readable file with what to do.
     *
     * @throws IllegalArgumentException with the file named
     */
    public static String read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(
                    "no cluster secret at " + file + ": copy the master's secret file there (the master"
                            + " printed its path), readable by you only (chmod 600), or name it with --secret-file");
        }
        try {
            if (posix() && !OWNER_ONLY.containsAll(Files.getPosixFilePermissions(file))) {
                throw new IllegalArgumentException(
                        "the cluster secret " + file + " can be read by other users: chmod 600 " + file);
            }
            String secret = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (secret.isEmpty()) {
                throw new IllegalArgumentException("the cluster secret " + file + " is empty");
            }
            return secret;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the cluster secret " + file + ": " + e.getMessage(), e);
        }
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }
}
