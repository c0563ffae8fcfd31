package org.traindeck.engine.sinks;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes HParams records as an event file of their own, whole or not at all (a temporary file TensorBoard ignores,
 * then a rename), named {@code events.out.tfevents.<seconds>.<host>.<suffix>} so a folder can be asked whether it
 * has one already.
 */
public final class HParamsFiles {

    private HParamsFiles() {}

    /** Whether {@code folder} has an event file ending in {@code suffix}. */
    public static boolean exists(Path folder, String suffix) throws IOException {
        if (!Files.isDirectory(folder)) {
            return false;
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString())
                    .anyMatch(n -> n.startsWith("events.out.tfevents.") && n.endsWith("." + suffix));
        }
    }

    public static Path write(Path folder, String suffix, List<byte[]> events) throws IOException {
        Files.createDirectories(folder);
        long now = System.currentTimeMillis();
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "localhost";
        }
        Path target = folder.resolve("events.out.tfevents." + now / 1000 + "." + host + "." + suffix);
        Path temp =
                folder.resolve(".hparams-" + now + "-" + ProcessHandle.current().pid() + ".tmp");
        try (OutputStream out = Files.newOutputStream(temp)) {
            TfRecordWriter records = new TfRecordWriter(out);
            records.write(TfEventEncoder.fileVersion(now / 1000.0));
            for (byte[] e : events) {
                records.write(e);
            }
        }
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
        return target;
    }
}
