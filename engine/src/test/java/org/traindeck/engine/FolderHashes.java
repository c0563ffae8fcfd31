package org.traindeck.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Every file below a folder with its SHA-256, to prove that an operation changed nothing there. */
public final class FolderHashes {

    private FolderHashes() {}

    public static Map<String, String> of(Path dir) throws IOException, NoSuchAlgorithmException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.filter(Files::isRegularFile).toList()) {
                files.put(
                        dir.relativize(p).toString(),
                        HexFormat.of()
                                .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p))));
            }
        }
        return files;
    }
}
