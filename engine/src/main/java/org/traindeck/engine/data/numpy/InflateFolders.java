package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where deflated {@code .npz} members are inflated: one folder per process, {@code <tmp>/traindeck-npz-<pid>}. A
 * process killed with SIGKILL never runs its deleteOnExit, so the folder names its owner, and the next TrainDeck
 * start removes the folders whose owner has ended.
 */
public final class InflateFolders {

    static final String PREFIX = "traindeck-npz-";
    private static final Logger LOG = LoggerFactory.getLogger(InflateFolders.class);

    private InflateFolders() {}

    /** The system's temporary folder, where a process's inflate folder lives. */
    public static Path systemTemp() {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** This process's folder under {@code root}, created (and registered for removal at a normal exit) if needed. */
    static synchronized Path ofThisProcess(Path root) throws IOException {
        Path dir = root.resolve(PREFIX + ProcessHandle.current().pid());
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            // registered before its files, so deleted after them (deleteOnExit runs in reverse order)
            dir.toFile().deleteOnExit();
        }
        return dir;
    }

    /** Removes the inflate folders under the system's temporary folder whose process has ended; never throws. */
    public static List<Path> removeOrphans() {
        return removeOrphans(systemTemp());
    }

    /**
     * Removes the inflate folders under {@code root} whose owning process has ended, and returns them. A folder whose
     * process id is alive is left alone (it may be a new process with a recycled id: it is removed at a later start).
     */
    public static List<Path> removeOrphans(Path root) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> folders = Files.newDirectoryStream(root, PREFIX + "*")) {
            for (Path dir : folders) {
                Long pid = ownerOf(dir);
                if (pid != null && ProcessHandle.of(pid).isEmpty() && deleteTree(dir)) {
                    removed.add(dir);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot look for leftover .npz temporary folders in {}: {}", root, e.toString());
        }
        if (!removed.isEmpty()) {
            LOG.info(
                    "removed {} temporary folder(s) of .npz members left by ended TrainDeck processes: {}",
                    removed.size(),
                    removed);
        }
        return removed;
    }

    /** The pid in a folder's name, or null when it is not an inflate folder (a file, another program's name). */
    private static Long ownerOf(Path dir) {
        String suffix = dir.getFileName().toString().substring(PREFIX.length());
        if (suffix.isEmpty()
                || suffix.length() > 18
                || !suffix.chars().allMatch(Character::isDigit)
                || !Files.isDirectory(dir)) {
            return null;
        }
        return Long.parseLong(suffix);
    }

    private static boolean deleteTree(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot remove {}, left by an ended TrainDeck process: {}", dir, e.toString());
            return false;
        }
    }
}
