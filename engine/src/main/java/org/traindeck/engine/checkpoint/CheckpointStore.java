package org.traindeck.engine.checkpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import org.traindeck.engine.sinks.RunFolder;

/**
 * A run's checkpoints, in {@code <runDir>/checkpoints/}: {@code step-<global step>.tdckpt} for the regular ones and
 * {@code best-<stage>.tdckpt} for each stage's best. Temporary files of interrupted writes are never listed.
 */
public final class CheckpointStore {

    public static final String FOLDER = RunFolder.CHECKPOINTS;

    private final Path dir;

    public CheckpointStore(Path runDir) {
        this.dir = runDir.resolve(FOLDER);
    }

    public Path folder() {
        return dir;
    }

    public Path regularFile(long globalStep) {
        return dir.resolve(regularFileName(globalStep));
    }

    public static String regularFileName(long globalStep) {
        return String.format(Locale.ROOT, "step-%09d%s", globalStep, CheckpointFiles.EXTENSION);
    }

    public Path bestFile(String stageName) {
        return dir.resolve("best-" + stageName + CheckpointFiles.EXTENSION);
    }

    /** Every checkpoint file, checked (manifest and checksums), newest step first. */
    public List<Checkpoint.Listed> list() throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Checkpoint.Listed> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(CheckpointFiles.EXTENSION)
                            && !p.getFileName().toString().startsWith("."))
                    .sorted()
                    .toList()) {
                try {
                    Checkpoint c = CheckpointFiles.verify(f);
                    out.add(new Checkpoint.Listed(f, c, null, RunIdentity.foreignReason(dir.getParent(), c)));
                } catch (CheckpointException e) {
                    out.add(new Checkpoint.Listed(f, null, e.getMessage()));
                }
            }
        }
        out.sort(Comparator.comparing(
                        (Checkpoint.Listed l) -> l.isValid() ? l.checkpoint().globalStep() : -1)
                .reversed()
                .thenComparing(l -> l.file().getFileName().toString()));
        return out;
    }

    /** The valid regular checkpoint with the highest step; best-of-stage copies are for keeping, not resuming. */
    public Optional<Checkpoint.Listed> latestValid() throws IOException {
        return list().stream()
                .filter(Checkpoint.Listed::isValid)
                .filter(l -> l.file().getFileName().toString().startsWith("step-"))
                .findFirst();
    }

    /** Deletes regular checkpoints beyond the newest {@code keep} (called only after a new one is safely written). */
    public void prune(int keep) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<Path> regular;
        try (Stream<Path> files = Files.list(dir)) {
            regular = files.filter(p -> {
                        String n = p.getFileName().toString();
                        return n.startsWith("step-") && n.endsWith(CheckpointFiles.EXTENSION);
                    })
                    .sorted(Comparator.reverseOrder())
                    .toList();
        }
        for (int i = keep; i < regular.size(); i++) {
            Files.deleteIfExists(regular.get(i));
        }
    }

    /** Removes the temporary files that crashed writes left behind. */
    public void removeLeftovers() throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(p -> p.getFileName().toString().startsWith(".tmp-"))
                    .toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
