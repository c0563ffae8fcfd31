package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inflate cache's cleaning at a TrainDeck start. Files it does not recognise as its own are left alone; an entry
 * removed while another process maps it stays readable to that process (POSIX), and one the system refuses to remove
 * (a mapped file on Windows) is kept for a later start.
 */
final class InflateCacheSweep {

    private static final Logger LOG = LoggerFactory.getLogger(InflateCacheSweep.class);

    /** An entry kept so far, with when it was last used. */
    private record Kept(Path file, long bytes, long lastUsedMillis) {}

    private InflateCacheSweep() {}

    static List<Path> sweep(Path root, InflateCache.Limits limits) {
        List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return removed;
        }
        long oldest = System.currentTimeMillis() - limits.maxUnused().toMillis();
        List<Kept> kept = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(root)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.contains(InflateCache.PART_MARK)) {
                    if (writerEnded(name)) {
                        delete(file, removed);
                    }
                } else if (isEntryName(name) && Files.isRegularFile(file)) {
                    CachedMember held = CachedMember.read(file);
                    long lastUsed = Files.getLastModifiedTime(file).toMillis();
                    if (held == null || !held.sourceUnchanged() || lastUsed < oldest) {
                        delete(file, removed);
                    } else {
                        kept.add(new Kept(file, Files.size(file), lastUsed));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot clean the .npz inflate cache {}: {}", root, e.toString());
        }
        kept.sort(Comparator.comparingLong(Kept::lastUsedMillis));
        long total = kept.stream().mapToLong(Kept::bytes).sum();
        for (int i = 0; i < kept.size() && total > limits.maxBytes(); i++) {
            if (delete(kept.get(i).file(), removed)) {
                total -= kept.get(i).bytes();
            }
        }
        if (!removed.isEmpty()) {
            LOG.info("removed {} file(s) from the .npz inflate cache {}", removed.size(), root);
        }
        return removed;
    }

    /** {@code <key>.npy}, the key 32 hex digits: a name only the cache gives. */
    private static boolean isEntryName(String name) {
        String key = name.substring(0, Math.max(0, name.length() - InflateCache.ENTRY_SUFFIX.length()));
        return name.endsWith(InflateCache.ENTRY_SUFFIX)
                && key.length() == 32
                && key.chars().allMatch(c -> Character.digit(c, 16) >= 0);
    }

    /** Whether the process named in a part file ({@code <key>.part-<pid>-<n>}) has ended; false when unsure. */
    private static boolean writerEnded(String partName) {
        String rest = partName.substring(partName.indexOf(InflateCache.PART_MARK) + InflateCache.PART_MARK.length());
        int dash = rest.indexOf('-');
        String pid = dash < 0 ? rest : rest.substring(0, dash);
        if (pid.isEmpty() || pid.length() > 18 || !pid.chars().allMatch(Character::isDigit)) {
            return false;
        }
        return ProcessHandle.of(Long.parseLong(pid)).isEmpty();
    }

    private static boolean delete(Path file, List<Path> removed) {
        try {
            Files.deleteIfExists(file);
            removed.add(file);
            return true;
        } catch (IOException e) {
            LOG.debug("cannot remove {} from the .npz inflate cache: {}", file, e.toString());
            return false;
        }
    }
}
