package org.traindeck.engine.train;

import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.RunConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Plans a resume before anything on disk is touched: finds the checkpoint (a file, or a run folder's latest valid
 * one), reads and checks it, and works out the config to continue with (the run's own, or a new one checked for
 * safety, with the options applied). The run keeps its folder and name.
 */
final class ResumePlanner {

    /** The checkpoint to continue from, its run folder, what it holds, and the config to continue with. */
    record Plan(Path checkpointFile, Path runDir, CheckpointFiles.Contents contents, RunConfig config) {}

    private ResumePlanner() {
    }

    static Plan plan(Path target, TrainingRun.ResumeOptions options) throws IOException, CheckpointException {
        Path file = locateCheckpoint(target);
        Path runDir = file.toAbsolutePath().getParent().getParent();
        CheckpointFiles.Contents contents = CheckpointFiles.read(file);
        Checkpoint c = contents.checkpoint();
        RunConfig original = ConfigParser.parse(contents.configJson(), runDir).orThrow();
        RunConfig config = original;
        if (options.config() != null) {
            config = ConfigParser.load(options.config()).orThrow();
        }
        if (options.epochs() != null) {
            if (c.stageIndex() >= config.stages().size()) {
                throw new CheckpointException("--epochs: the checkpoint is past the config's last stage");
            }
            config = config.withStageEpochs(Math.min(c.stageIndex(), config.stages().size() - 1), options.epochs());
        }
        if (options.devices() != null) {
            config = config.withDevices(options.devices());
        }
        ResumeCheck.check(original, config, c);
        config = new RunConfig(original.name(), runDir.getParent().toString(), config.seed(), config.devices(), config.model(),
                config.data(), config.stages(), config.logging(), config.checkpoint(), config.onNonFinite(), config.parallel(),
                config.nccl(), config.stepTimeoutSeconds(), config.baseDir());
        return new Plan(file, runDir, contents, config);
    }

    /** The checkpoint to resume from: the file itself, or a run folder's latest valid checkpoint. */
    static Path locateCheckpoint(Path target) throws IOException, CheckpointException {
        if (Files.isRegularFile(target)) {
            Path parent = target.toAbsolutePath().getParent();
            if (parent == null || !parent.getFileName().toString().equals(CheckpointStore.FOLDER)) {
                throw new CheckpointException(target + " is not inside a run's " + CheckpointStore.FOLDER + "/ folder, so there is no run to continue");
            }
            return target;
        }
        if (!Files.isDirectory(target)) {
            throw new CheckpointException("no such run folder or checkpoint: " + target);
        }
        Path runDir = target.getFileName() != null && target.getFileName().toString().equals(CheckpointStore.FOLDER)
                ? target.toAbsolutePath().getParent() : target;
        CheckpointStore store = new CheckpointStore(runDir);
        List<Checkpoint.Listed> all = store.list();
        return store.latestValid().map(Checkpoint.Listed::file).orElseThrow(() -> new CheckpointException(
                all.isEmpty() ? runDir + " has no checkpoints (" + store.folder() + " is missing or empty)" + runsInside(runDir)
                        : runDir + " has no usable checkpoint: " + String.join("; ", all.stream().map(Checkpoint.Listed::problem).toList())));
    }

    /** When a user names the output folder instead of a run in it: the runs that could be meant. */
    private static String runsInside(Path folder) {
        try (var children = Files.list(folder)) {
            List<String> runs = children.filter(d -> Files.isDirectory(d.resolve(CheckpointStore.FOLDER)))
                    .map(d -> d.getFileName().toString()).sorted().limit(5).toList();
            return runs.isEmpty() ? "" : ". It holds run folders: give one of them, for example " + folder.resolve(runs.get(0))
                    + (runs.size() > 1 ? " (also: " + String.join(", ", runs.subList(1, runs.size())) + ")" : "");
        } catch (IOException e) {
            return "";
        }
    }
}
