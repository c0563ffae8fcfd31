package org.traindeck.engine.use.predict;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.traindeck.engine.outputs.PredictionInputException;

/**
 * Output that appears whole or not at all: every file is written to a temporary name beside its target, synced, and
 * only then moved into place; a failure on the way removes the temporaries and leaves the targets as they were. An
 * existing target is replaced only when {@code force} says so.
 */
final class AtomicOutput {

    /** Writes a file's content. */
    interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    /** Writes a folder's files into the (empty) folder it is given. */
    interface FolderContent {
        void writeInto(Path folder) throws IOException;
    }

    private AtomicOutput() {}

    /**
     * Refuses an existing target unless forced, and a forced one of the other kind (a file for a folder): before any
     * work, so that nothing is computed for nothing.
     */
    static void checkFree(Path target, boolean force, boolean folder) {
        if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!force) {
            throw new PredictionInputException(target + " exists: give --force to replace it, or another --out");
        }
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS) != folder) {
            throw new PredictionInputException(target + " exists and is a " + (folder ? "file" : "folder")
                    + ", but this output is a " + (folder ? "folder" : "file")
                    + ": --force replaces a file with a file and a folder with a folder only");
        }
    }

    /** The files together: all written, then all moved into place. */
    static void writeFiles(Map<Path, Content> files, boolean force) throws IOException {
        for (Path target : files.keySet()) {
            checkFree(target, force, false);
        }
        Map<Path, Path> temps = new LinkedHashMap<>();
        try {
            for (Map.Entry<Path, Content> e : files.entrySet()) {
                Path target = e.getKey().toAbsolutePath();
                Files.createDirectories(target.getParent());
                Path temp = sibling(target, ".tmp");
                temps.put(temp, target);
                // created as any file the run folder holds (the umask's mode), not createTempFile's owner-only 0600
                try (FileChannel channel =
                        FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW)) {
                    OutputStream out = Channels.newOutputStream(channel);
                    e.getValue().writeTo(out);
                    out.flush();
                    channel.force(true);
                }
            }
            for (Map.Entry<Path, Path> e : temps.entrySet()) {
                move(e.getKey(), e.getValue());
                syncFolder(e.getValue().getParent());
            }
        } finally {
            for (Path temp : temps.keySet()) {
                Files.deleteIfExists(temp);
            }
        }
    }

    /** A folder of files: written in a temporary folder beside the target, then moved into place in one step. */
    static void writeFolder(Path target, boolean force, FolderContent content) throws IOException {
        checkFree(target, force, true);
        Path absolute = target.toAbsolutePath();
        Files.createDirectories(absolute.getParent());
        Path temp = Files.createDirectory(sibling(absolute, ".tmp"));
        Path old = null;
        try {
            content.writeInto(temp);
            if (Files.exists(absolute)) {
                old = Files.createTempDirectory(absolute.getParent(), "." + absolute.getFileName() + ".old.");
                Files.delete(old);
                Files.move(absolute, old, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(temp, absolute, StandardCopyOption.ATOMIC_MOVE);
            syncFolder(absolute.getParent());
        } catch (IOException | RuntimeException e) {
            if (old != null && !Files.exists(absolute)) {
                Files.move(old, absolute, StandardCopyOption.ATOMIC_MOVE);
                old = null;
            }
            throw e;
        } finally {
            deleteTree(temp);
            if (old != null) {
                deleteTree(old);
            }
        }
    }

    /** A name beside {@code target} that nothing has: hidden, and named after it. */
    private static Path sibling(Path target, String suffix) {
        Path candidate;
        do {
            candidate = target.resolveSibling("." + target.getFileName() + "."
                    + Long.toHexString(ThreadLocalRandom.current().nextLong()) + suffix);
        } while (Files.exists(candidate, LinkOption.NOFOLLOW_LINKS));
        return candidate;
    }

    private static void move(Path temp, Path target) throws IOException {
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The rename itself made durable; a file system that cannot sync a folder is left to its own ordering. */
    private static void syncFolder(Path folder) {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // not possible on every platform (Windows); the data itself was synced before the move
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        List<Path> all = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                all.add(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc) {
                all.add(dir);
                return FileVisitResult.CONTINUE;
            }
        });
        for (Path p : all) {
            Files.deleteIfExists(p);
        }
    }
}
