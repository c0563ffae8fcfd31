package org.traindeck.engine.train;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.checkpoint.RunIdentity;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.model.kernels.KernelChoices;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.train.resume.ResumeCheck;

/**
 * Plans a resume before anything on disk is touched: finds the checkpoint (a file, or a run folder's latest valid
 * one), reads and checks it, and works out the config to continue with (the run's own, or a new one checked for
 * safety, with the options applied). The run keeps its folder and name.
 */
final class ResumePlanner {

    /** The checkpoint to continue from, its run folder, what it holds, and the config to continue with. */
    record Plan(Path checkpointFile, Path runDir, CheckpointFiles.Contents contents, RunConfig config) {}

    private ResumePlanner() {}

    static Plan plan(Path target, ResumeOptions options) throws IOException, CheckpointException {
        Path file = locateCheckpoint(target);
        Path runDir = file.toAbsolutePath().getParent().getParent();
        CheckpointFiles.Contents contents = CheckpointFiles.read(file);
        Checkpoint c = contents.checkpoint();
        RunConfig original = ConfigParser.parse(contents.configJson(), runDir).orThrow();
        checkBelongs(file, runDir, c, original, options.fromAnotherRun());
        RunConfig config = original;
        if (options.config() != null) {
            config = ConfigParser.load(options.config()).orThrow();
        }
        if (options.epochs() != null) {
            if (c.stageIndex() >= config.stages().size()) {
                throw new CheckpointException("--epochs: the checkpoint is past the config's last stage");
            }
            config = config.withStageEpochs(
                    Math.min(c.stageIndex(), config.stages().size() - 1), options.epochs());
        }
        if (options.cluster() != null) {
            config = config.withParallel(config.parallel()
                    .withCluster(options.cluster(), config.parallel().executors()));
        } else if (options.devices() != null && config.parallel().onCluster()) {
            config = config.withParallel(
                    config.parallel().withCluster("", config.parallel().executors()));
        }
        if (options.devices() != null) {
            config = config.withDevices(options.devices());
            ValidationResult again = ConfigParser.revalidate(config);
            if (!again.isValid()) {
                throw new CheckpointException(
                        again.errors().stream().map(Object::toString).collect(Collectors.joining("; "))
                                + " (with --devices " + options.devices()
                                + "): nothing was resumed, and nothing in the run folder changed");
            }
        }
        ResumeCheck.check(original, config, c);
        config = config.withName(original.name())
                .withOutputDir(runDir.getParent().toString());
        return new Plan(file, runDir, contents, config);
    }

    /**
     * Refuses a checkpoint that another run wrote (copied into this run's folder, say): its run name and model must be
     * the ones of the run folder's own config.json. Checked before anything in the folder is touched.
     */
    static void checkBelongs(Path file, Path runDir, Checkpoint c, RunConfig fromCheckpoint, boolean fromAnotherRun)
            throws IOException, CheckpointException {
        Path own = RunFolder.of(runDir).config();
        if (!Files.isRegularFile(own)) {
            throw new CheckpointException(runDir + " has no config.json, so " + file.getFileName()
                    + " cannot be checked against " + "the run it would continue; nothing was changed");
        }
        RunConfig run;
        try {
            run = ConfigParser.parse(Files.readString(own), runDir).orThrow();
        } catch (RuntimeException e) {
            throw new CheckpointException(own + " is not a valid run config (" + e.getMessage() + "), so "
                    + file.getFileName() + " cannot be checked against the run it would continue; nothing was changed");
        }
        // the fingerprint leaves the kernel choices out (a run resumes with either)
        String model = ConfigWriter.modelJson(KernelChoices.withoutChoices(modelOf(run, c)));
        if (!c.runName().equals(run.name())
                || !c.modelFingerprint().startsWith(model + "|")
                || !ConfigWriter.modelJson(KernelChoices.withoutChoices(modelOf(fromCheckpoint, c)))
                        .equals(model)) {
            throw new CheckpointException(
                    file.getFileName() + " belongs to another run (\"" + c.runName() + "\", model "
                            + c.modelFingerprint().split("\\|")[0] + ") than " + runDir.getFileName() + " (\""
                            + run.name() + "\", model "
                            + model + "): it was refused, and nothing in the run folder was changed");
        }
        // same name and model, but another run's (a second run of the same config, say): told apart by the run id
        String otherRun = RunIdentity.foreignReason(runDir, c);
        if (otherRun != null && !fromAnotherRun) {
            throw new CheckpointException(file.getFileName() + " is " + otherRun + ", not " + runDir.getFileName()
                    + "'s: it was refused, and nothing in the run folder was changed (to continue from it here all the"
                    + " same, resume with --from-another-run)");
        }
    }

    /** Why a listed checkpoint is not this folder's run's (null when it is, or when the folder has no readable config). */
    private static String foreignReason(Path runDir, Checkpoint c) {
        String byId = RunIdentity.foreignReason(runDir, c);
        if (byId != null) {
            return byId;
        }
        try {
            RunConfig run = ConfigParser.parse(
                            Files.readString(RunFolder.of(runDir).config()), runDir)
                    .orThrow();
            // the fingerprint leaves the kernel choices out (a run resumes with either)
            String model = ConfigWriter.modelJson(KernelChoices.withoutChoices(modelOf(run, c)));
            return c.runName().equals(run.name()) && c.modelFingerprint().startsWith(model + "|")
                    ? null
                    : "written by run \"" + c.runName() + "\", not this one";
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The model a checkpoint's parameters belong to: the one its stage trains (a cascade's stages train several). */
    private static ModelConfig modelOf(RunConfig config, Checkpoint c) {
        return config.modelAt(Math.min(c.stageIndex(), config.stages().size() - 1));
    }

    /** One writer per run folder: a folder in use is said so before anything else is looked at. */
    static void refuseIfInUse(Path target) throws IOException {
        Path runDir = runDirOf(target);
        if (runDir != null && RunLock.isHeld(runDir)) {
            RunLock.acquire(runDir).close();
        }
    }

    /**
     * A checkpoint taken mid-epoch under parameter averaging can only continue on as many devices as trained that
     * epoch: its averaging rounds depend on them.
     */
    static void checkMidEpochDevices(Plan plan, int workers) {
        Checkpoint c = plan.contents().checkpoint();
        if (c.batchInEpoch() > 0
                && c.workers() != workers
                && !plan.config().parallel().synchronous()) {
            throw new InvalidConfigException(
                    "devices",
                    "the checkpoint is in the middle of an epoch trained on " + c.workers()
                            + " device(s) with parameter averaging; continuing that epoch on " + workers
                            + " would change its rounds. Resume from an end-of-epoch checkpoint (traindeck checkpoints "
                            + plan.runDir() + ") to change the devices");
        }
    }

    /** The run folder a resume target names (a checkpoint file in it, or the folder), or null when it names neither. */
    static Path runDirOf(Path target) {
        Path t = target.toAbsolutePath();
        if (Files.isRegularFile(t)) {
            Path parent = t.getParent();
            return parent == null || parent.getParent() == null ? null : parent.getParent();
        }
        if (!Files.isDirectory(t)) {
            return null;
        }
        return t.getFileName() != null && t.getFileName().toString().equals(CheckpointStore.FOLDER) ? t.getParent() : t;
    }

    /** The checkpoint to resume from: the file itself, or a run folder's latest valid checkpoint of its own run. */
    static Path locateCheckpoint(Path target) throws IOException, CheckpointException {
        if (Files.isRegularFile(target)) {
            Path parent = target.toAbsolutePath().getParent();
            if (parent == null || !parent.getFileName().toString().equals(CheckpointStore.FOLDER)) {
                throw new CheckpointException(target + " is not inside a run's " + CheckpointStore.FOLDER
                        + "/ folder, so there is no run to continue");
            }
            return target;
        }
        if (!Files.isDirectory(target)) {
            throw new CheckpointException("no such run folder or checkpoint: " + target);
        }
        Path runDir =
                target.getFileName() != null && target.getFileName().toString().equals(CheckpointStore.FOLDER)
                        ? target.toAbsolutePath().getParent()
                        : target;
        CheckpointStore store = new CheckpointStore(runDir);
        List<Checkpoint.Listed> all = store.list();
        List<String> skipped = new ArrayList<>();
        for (Checkpoint.Listed l : all) {
            if (!l.isValid() || !l.file().getFileName().toString().startsWith("step-")) {
                continue;
            }
            String foreign = foreignReason(runDir, l.checkpoint());
            if (foreign == null) {
                return l.file();
            }
            // a checkpoint of another run, dropped here: never the one a folder resume picks
            skipped.add(l.file().getFileName() + " (" + foreign + ")");
        }
        List<String> problems = new ArrayList<>(all.stream()
                .filter(l -> !l.isValid())
                .map(Checkpoint.Listed::problem)
                .toList());
        problems.addAll(skipped);
        throw new CheckpointException(
                all.isEmpty()
                        ? runDir + " has no checkpoints (" + store.folder() + " is missing or empty)"
                                + runsInside(runDir)
                        : runDir + " has no usable checkpoint: " + String.join("; ", problems));
    }

    /** When a user names the output folder instead of a run in it: the runs that could be meant. */
    private static String runsInside(Path folder) {
        try (var children = Files.list(folder)) {
            List<String> runs = children.filter(d -> Files.isDirectory(d.resolve(CheckpointStore.FOLDER)))
                    .map(d -> d.getFileName().toString())
                    .sorted()
                    .limit(5)
                    .toList();
            return runs.isEmpty()
                    ? ""
                    : ". It holds run folders: give one of them, for example " + folder.resolve(runs.get(0))
                            + (runs.size() > 1
                                    ? " (also: " + String.join(", ", runs.subList(1, runs.size())) + ")"
                                    : "");
        } catch (IOException e) {
            return "";
        }
    }
}
