package org.traindeck.engine.trials;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.queue.RunStarter;
import org.traindeck.engine.sinks.RunDirectory;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.train.LiveRun;

/**
 * Starts a sweep's trials each in a JVM of its own ({@link TrialMain}, this JVM's class path), so that a native crash
 * in one trial (ND4J ops of two models at once have crashed a shared JVM) takes only that trial's process down. The
 * sweep's process owns its trials' processes: when it exits they are asked to stop with a checkpoint and then killed,
 * and when it is killed outright they see their standard input end and stop by themselves.
 */
public final class TrialProcesses implements RunStarter {

    private static final Logger LOG = LoggerFactory.getLogger(TrialProcesses.class);
    /** How long a trial asked to stop may take for its checkpoint before its process is killed. */
    static final long STOP_WAIT_SECONDS = 60;

    private static final Set<SupervisedTrial> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(TrialProcesses::stopAll, "traindeck-stop-trial-processes"));
    }

    /** What became of a restart after a crash: the new process (null: none, the message says why) and its folder. */
    record Restart(TrialChild child, Path runDir, String message) {}

    private final TrialLaunch launch;
    private volatile Consumer<TrialChild.Ended> onCrash = e -> {};

    public TrialProcesses(TrialLaunch launch) {
        this.launch = launch;
    }

    /** Hears of every trial process that ended without a result (a test waits on it; the sweep logs it). */
    public void onCrash(Consumer<String> crashes) {
        this.onCrash = e -> crashes.accept(e.describe());
    }

    @Override
    public LiveRun prepare(RunConfig config) throws IOException {
        Path dir = newFolder(config);
        return live(new SupervisedTrial(this, config, dir, startIn(dir)));
    }

    @Override
    public LiveRun resume(Path runDir, DeviceSelection devices) throws IOException, CheckpointException {
        TrialChild child = resumeChild(runDir, devices);
        TrialChild.Start start = child.awaitStart();
        if (start == TrialChild.Start.NO_CHECKPOINT) {
            throw new CheckpointException(child.startMessage());
        }
        if (start != TrialChild.Start.PREPARED) {
            throw new IOException(child.startMessage());
        }
        RunConfig config = ConfigParser.load(latestConfig(runDir)).orThrow();
        return live(new SupervisedTrial(this, devices == null ? config : config.withDevices(devices), runDir, child));
    }

    /** After a crash: the run continued from its latest checkpoint, or started again in a new folder when it has none. */
    Restart restart(RunConfig config, Path runDir) {
        try {
            TrialChild child = resumeChild(runDir, config.devices());
            TrialChild.Start start = child.awaitStart();
            if (start == TrialChild.Start.PREPARED) {
                return new Restart(child, runDir, "");
            }
            if (start != TrialChild.Start.NO_CHECKPOINT) {
                return new Restart(null, runDir, child.startMessage());
            }
            String why = child.startMessage();
            Path dir = newFolder(config);
            TrialChild fresh = startIn(dir);
            return new Restart(fresh, dir, "no checkpoint to resume from (" + why + "), started again in " + dir);
        } catch (IOException e) {
            return new Restart(null, runDir, e.getMessage());
        }
    }

    /** A new trial process in its new run folder, ready to train; a folder it could not start in is removed. */
    private TrialChild startIn(Path dir) throws IOException {
        TrialChild child = TrialChild.launch(launch, dir, List.of("start", dir.toString()));
        TrialChild.Start start = child.awaitStart();
        if (start != TrialChild.Start.PREPARED) {
            String why = child.startMessage();
            if (start == TrialChild.Start.FAILED) {
                removeUntrained(dir);
            }
            throw new IOException(why);
        }
        return child;
    }

    void crashed(SupervisedTrial trial, TrialChild.Ended ended) {
        LOG.warn("{}: {}", trial.config().name(), ended.describe());
        onCrash.accept(ended);
    }

    void forget(SupervisedTrial trial) {
        LIVE.remove(trial);
    }

    /** A process asked to stop that is still there after {@link #STOP_WAIT_SECONDS} hangs: it is killed. */
    void killIfStillAliveLater(TrialChild child) {
        CompletableFuture.delayedExecutor(STOP_WAIT_SECONDS, TimeUnit.SECONDS).execute(() -> {
            if (child.isAlive()) {
                LOG.warn(
                        "trial process {} did not stop within {} s of being asked: killed",
                        child.pid(),
                        STOP_WAIT_SECONDS);
                child.kill();
            }
        });
    }

    private TrialChild resumeChild(Path runDir, DeviceSelection devices) throws IOException {
        List<String> args = new ArrayList<>(List.of("resume", runDir.toString()));
        if (devices != null) {
            args.add(TrialMain.devicesArgument(devices));
        }
        return TrialChild.launch(launch, runDir, args);
    }

    private static LiveRun live(SupervisedTrial trial) {
        LIVE.add(trial);
        return trial;
    }

    /** A new run folder with the trial's config in it, made here so that the process's crash log can go in it. */
    private static Path newFolder(RunConfig config) throws IOException {
        Path dir = RunDirectory.create(config.outputPath(), config.name());
        Files.writeString(
                RunFolder.of(dir).config(), ConfigWriter.toJsonWithAbsolutePaths(config), StandardCharsets.UTF_8);
        return dir;
    }

    /** The config the run's latest resume wrote (config.resume-N.json), else its config.json. */
    private static Path latestConfig(Path runDir) {
        Path latest = RunFolder.of(runDir).config();
        for (int n = 1; Files.exists(RunFolder.of(runDir).resumeConfig(n)); n++) {
            latest = RunFolder.of(runDir).resumeConfig(n);
        }
        return latest;
    }

    /** A folder made for a process that never trained holds nothing of the user's: it goes, as a failed start's does. */
    private static void removeUntrained(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            LOG.debug("could not remove {}: {}", dir, e.toString());
        }
    }

    private static void stopAll() {
        List<Thread> stopping = new ArrayList<>();
        for (SupervisedTrial t : LIVE) {
            Thread s = new Thread(() -> t.stopOrKill(STOP_WAIT_SECONDS), "traindeck-stop-trial");
            s.start();
            stopping.add(s);
        }
        for (Thread s : stopping) {
            try {
                s.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
