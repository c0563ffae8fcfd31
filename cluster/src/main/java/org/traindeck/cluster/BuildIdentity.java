package org.traindeck.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.parallel.ShardReplica;

/**
 * Which TrainDeck build a JVM runs: the version and a hash of the engine's classes (the engine jar's bytes, or the
 * sorted class files under target/classes in a development checkout). Replicas built from different code could
 * differ silently, so an executor whose build is not the driver's is refused at join. Computed once per JVM.
 */
final class BuildIdentity {

    /** Where an executor reads its own build's identity; a test passes another to play a foreign build. */
    @FunctionalInterface
    interface Source extends Serializable {
        String identity();
    }

    private static final class Holder {
        static final String LOCAL = compute();
    }

    private BuildIdentity() {}

    /** "TrainDeck 0.1.0-SNAPSHOT (engine 3f2a…)" for this JVM. */
    static String local() {
        return Holder.LOCAL;
    }

    private static String compute() {
        Path engine;
        try {
            engine = Path.of(ShardReplica.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException | RuntimeException e) {
            return "TrainDeck " + Engine.version() + " (engine of unknown origin)";
        }
        MessageDigest digest = sha256();
        try {
            if (Files.isDirectory(engine)) {
                List<Path> classes;
                try (Stream<Path> files = Files.walk(engine)) {
                    classes = files.filter(Files::isRegularFile)
                            .map(engine::relativize)
                            .sorted()
                            .toList();
                }
                for (Path file : classes) {
                    digest.update(file.toString().getBytes(StandardCharsets.UTF_8));
                    add(digest, engine.resolve(file));
                }
            } else {
                add(digest, engine);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read TrainDeck's engine classes at " + engine, e);
        }
        return "TrainDeck " + Engine.version() + " (engine " + HexFormat.of().formatHex(digest.digest(), 0, 8) + ")";
    }

    private static void add(MessageDigest digest, Path file) throws IOException {
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java has no SHA-256", e);
        }
    }
}
