package org.traindeck.engine.use;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointStore;

/**
 * Which checkpoint a run folder's trained model is: the best one of its last stage that kept a best (the monitor's
 * {@code best-<stage>} file), else its newest valid regular checkpoint. Another run's checkpoints copied into the
 * folder are never picked.
 */
final class CheckpointChoice {

    private CheckpointChoice() {}

    /** The checkpoint file a target names: the file itself, or a run folder's (or its checkpoints/ folder's) pick. */
    static Path locate(Path target) throws CheckpointException {
        if (Files.isRegularFile(target)) {
            return target;
        }
        if (!Files.isDirectory(target)) {
            throw new CheckpointException("no such run folder or checkpoint file: " + target);
        }
        Path runDir = CheckpointStore.FOLDER.equals(
                        String.valueOf(target.toAbsolutePath().normalize().getFileName()))
                ? target.toAbsolutePath().normalize().getParent()
                : target;
        CheckpointStore store = new CheckpointStore(runDir);
        List<Checkpoint.Listed> all;
        try {
            all = store.list();
        } catch (IOException e) {
            throw new CheckpointException("cannot list the checkpoints of " + runDir + ": " + e.getMessage(), e);
        }
        List<Checkpoint.Listed> usable = all.stream()
                .filter(Checkpoint.Listed::isValid)
                .filter(l -> l.foreign() == null)
                .toList();
        Optional<Checkpoint.Listed> best = usable.stream()
                .filter(l -> name(l).startsWith("best-"))
                .max(Comparator.comparingInt(
                                (Checkpoint.Listed l) -> l.checkpoint().stageIndex())
                        .thenComparingLong(l -> l.checkpoint().globalStep()));
        Optional<Checkpoint.Listed> newest = usable.stream()
                .filter(l -> name(l).startsWith("step-"))
                .max(Comparator.comparingLong(l -> l.checkpoint().globalStep()));
        Optional<Checkpoint.Listed> chosen = best.isPresent() ? best : newest;
        if (chosen.isPresent()) {
            return chosen.get().file();
        }
        if (all.isEmpty()) {
            throw new CheckpointException(
                    runDir + " has no checkpoints (" + store.folder() + " is missing or empty): give a run"
                            + " folder that finished at least one epoch, or a .tdckpt file");
        }
        List<String> problems = new ArrayList<>();
        for (Checkpoint.Listed l : all) {
            problems.add(l.isValid() ? name(l) + " (" + l.foreign() + ")" : l.problem());
        }
        throw new CheckpointException(runDir + " has no usable checkpoint: " + String.join("; ", problems));
    }

    /**
     * The checkpoint of one of a cascade's networks: the best of the last of its stages that kept one, else the newest
     * valid regular checkpoint written in one of them.
     *
     * @param stages the names of the network's stages, in order
     * @param what   the network, as an error names it
     */
    static Path forStages(Path runDir, List<String> stages, String what) throws CheckpointException {
        CheckpointStore store = new CheckpointStore(runDir);
        List<Checkpoint.Listed> usable;
        try {
            usable = store.list().stream()
                    .filter(Checkpoint.Listed::isValid)
                    .filter(l -> l.foreign() == null)
                    .filter(l -> stages.contains(l.checkpoint().stageName()))
                    .toList();
        } catch (IOException e) {
            throw new CheckpointException("cannot list the checkpoints of " + runDir + ": " + e.getMessage(), e);
        }
        for (int i = stages.size() - 1; i >= 0; i--) {
            Path best = store.bestFile(stages.get(i));
            if (usable.stream().anyMatch(l -> l.file().equals(best))) {
                return best;
            }
        }
        return usable.stream()
                .filter(l -> name(l).startsWith("step-"))
                .max(Comparator.comparingLong(l -> l.checkpoint().globalStep()))
                .map(Checkpoint.Listed::file)
                .orElseThrow(() -> new CheckpointException(store.folder() + ": " + what + " has no checkpoint (no best-"
                        + String.join(".tdckpt or best-", stages) + ".tdckpt, and no step checkpoint written in "
                        + (stages.size() == 1 ? "that stage" : "those stages") + "): the cascade needs every stage's"
                        + " network; train the run through it (traindeck resume " + runDir + ")"));
    }

    /** The run folder a checkpoint file sits in ({@code <run>/checkpoints/x.tdckpt}), or null. */
    static Path runDirOf(Path checkpointFile) {
        Path parent = checkpointFile.toAbsolutePath().normalize().getParent();
        if (parent == null
                || !CheckpointStore.FOLDER.equals(String.valueOf(parent.getFileName()))
                || parent.getParent() == null) {
            return null;
        }
        return parent.getParent();
    }

    private static String name(Checkpoint.Listed l) {
        return l.file().getFileName().toString();
    }
}
