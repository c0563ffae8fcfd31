package org.traindeck.engine.train;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.checkpoint.RunIdentity;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.devices.energy.EnergyMeter;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.parallel.NcclEnvironment;
import org.traindeck.engine.sinks.FlushingSink;
import org.traindeck.engine.sinks.MetricFiles;
import org.traindeck.engine.sinks.RunDirectory;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.sinks.RunLogSink;
import org.traindeck.engine.sinks.SinkKind;
import org.traindeck.engine.sinks.SinkKinds;
import org.traindeck.engine.train.batch.PreparedStart;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.StartWork;
import org.traindeck.engine.train.state.TrainingState;

/**
 * One training run: its folder, its event stream and its lifecycle (start, stop, await). The training itself is the
 * {@link Trainer}'s; this class wires the run folder, the metric files, the devices and the policies around it.
 *
 * <pre>
 * TrainingRun run = TrainingRun.prepare(config);   // creates the run folder and its files
 * run.subscribe(listener, EventBus.Delivery.DROP_WHEN_BEHIND);
 * run.start();                                     // trains on a background thread
 * RunResult result = run.await();
 * </pre>
 */
public final class TrainingRun implements LiveRun {

    /**
     * What to change when resuming: a new config (checked for safety), the current stage's epochs, the devices (which
     * also moves a cluster run onto this machine) or the cluster ("spark://HOST:7077"); and whether a checkpoint that
     * another run of the same name and model wrote may be continued in this run's folder (refused otherwise).
     */
    public record ResumeOptions(
            Path config, Integer epochs, DeviceSelection devices, String cluster, boolean fromAnotherRun) {
        public static final ResumeOptions NONE = new ResumeOptions(null, null, null);

        public ResumeOptions(Path config, Integer epochs) {
            this(config, epochs, null);
        }

        /** Devices given without a cluster: a cluster run continues on this machine. */
        public ResumeOptions(Path config, Integer epochs, DeviceSelection devices) {
            this(config, epochs, devices, null);
        }

        public ResumeOptions(Path config, Integer epochs, DeviceSelection devices, String cluster) {
            this(config, epochs, devices, cluster, false);
        }
    }

    private final RunConfig config;
    private final Path runDir;
    private final EventBus bus = new EventBus();
    private final RunEvents events;
    private final DeviceResolver.Resolved devices;
    private final CheckpointFiles.Contents resumeFrom;
    private final RunFaults faults;
    private volatile EnergyMeter.Sources energySources;
    private final TrainingState state;
    private final CompletableFuture<RunResult> result = new CompletableFuture<>();
    private final NcclReport ncclReport;
    private final RunLock lock;
    private final List<SinkKind> sinkKinds;
    private volatile Thread thread;
    private PreparedStart start;
    private StartWork work = StartWork.NONE;

    private TrainingRun(
            RunConfig config,
            Path runDir,
            DeviceResolver.Resolved devices,
            CheckpointFiles.Contents resumeFrom,
            RunFaults faults,
            NcclReport ncclReport,
            RunLock lock,
            List<SinkKind> sinkKinds)
            throws IOException {
        this.lock = lock;
        this.sinkKinds = sinkKinds;
        this.config = config;
        this.runDir = runDir;
        this.events = new RunEvents(
                config.name(), runDir, bus, new RunLogSink(RunFolder.of(runDir).log()));
        this.devices = devices;
        this.resumeFrom = resumeFrom;
        this.faults = faults;
        this.ncclReport = ncclReport;
        Checkpoint c = resumeFrom == null ? null : resumeFrom.checkpoint();
        this.state = c == null
                ? new TrainingState(0, 0, Map.of())
                : new TrainingState(c.globalStep(), c.elapsedSeconds(), c.best());
        events.attach(state);
    }

    /**
     * What a run is prepared from: its config, where its devices are found, the failures a test injects, the metric
     * files it opens, its folder (null: a new one under the config's output folder), and what preparing it read and
     * compiled already ({@code start}, null: nothing; the run reads and compiles what it needs, telling {@code work}).
     */
    public record Request(
            RunConfig config,
            DeviceDiscovery discovery,
            RunFaults faults,
            List<SinkKind> sinkKinds,
            Path dir,
            PreparedStart start,
            StartWork work) {

        /** This machine's devices, no faults, every metric file, a new folder, nothing prepared. */
        public static Request of(RunConfig config) {
            return new Request(
                    config, DeviceDiscovery.system(), RunFaults.NONE, SinkKinds.ALL, null, null, StartWork.NONE);
        }

        public Request on(DeviceDiscovery newDiscovery) {
            return new Request(config, newDiscovery, faults, sinkKinds, dir, start, work);
        }

        public Request withFaults(RunFaults newFaults) {
            return new Request(config, discovery, newFaults, sinkKinds, dir, start, work);
        }

        public Request opening(List<SinkKind> newSinkKinds) {
            return new Request(config, discovery, faults, newSinkKinds, dir, start, work);
        }

        /** In a run folder made for it already by {@link RunDirectory} (a sweep's trial process, whose crash log must go there from its first instant). */
        public Request in(Path newDir) {
            return new Request(config, discovery, faults, sinkKinds, newDir, start, work);
        }

        /** Training on what preparing read and compiled: its data is not read again, nor its model compiled again. */
        public Request trainingOn(PreparedStart newStart, StartWork newWork) {
            return new Request(config, discovery, faults, sinkKinds, dir, newStart, newWork);
        }
    }

    /**
     * Checks what can be checked before any training (devices), creates a new run folder (never reusing one) unless
     * the request names one, writes the resolved config.json and opens the configured metric files.
     */
    public static TrainingRun prepare(Request request) throws IOException {
        RunConfig config = request.config();
        NcclReport nccl = NcclEnvironment.apply(config.nccl(), Nd4jRuntime.isLoaded());
        DeviceResolver.Resolved devices = RunDevices.resolve(config.devices(), request.discovery());
        Path dir = request.dir() != null ? request.dir() : RunDirectory.create(config.outputPath(), config.name());
        TrainingRun run = prepare(config, dir, devices, nccl, request.faults(), request.sinkKinds())
                .measuredBy(request.discovery());
        run.start = request.start();
        run.work = request.work();
        return run;
    }

    /** {@link #prepare(Request)} of {@link Request#of}{@code (config)}. */
    public static TrainingRun prepare(RunConfig config) throws IOException {
        return prepare(Request.of(config));
    }

    /** {@link #prepare(Request)}, discovering devices with {@code discovery}. */
    public static TrainingRun prepare(RunConfig config, DeviceDiscovery discovery) throws IOException {
        return prepare(Request.of(config).on(discovery));
    }

    /** {@link #prepare(Request)}, with failures injected by a test. */
    public static TrainingRun prepare(RunConfig config, DeviceDiscovery discovery, RunFaults faults)
            throws IOException {
        return prepare(Request.of(config).on(discovery).withFaults(faults));
    }

    /** {@link #prepare(Request)}, opening {@code sinkKinds} instead of {@link SinkKinds#ALL}. */
    public static TrainingRun prepare(
            RunConfig config, DeviceDiscovery discovery, RunFaults faults, List<SinkKind> sinkKinds)
            throws IOException {
        return prepare(Request.of(config).on(discovery).withFaults(faults).opening(sinkKinds));
    }

    private static TrainingRun prepare(
            RunConfig config,
            Path dir,
            DeviceResolver.Resolved devices,
            NcclReport nccl,
            RunFaults faults,
            List<SinkKind> sinkKinds)
            throws IOException {
        RunLock lock = RunLock.acquire(dir);
        try {
            Files.writeString(
                    RunFolder.of(dir).config(), ConfigWriter.toJsonWithAbsolutePaths(config), StandardCharsets.UTF_8);
            RunIdentity.create(dir);
            TrainingRun run = new TrainingRun(config, dir, devices, null, faults, nccl, lock, sinkKinds);
            run.openSinks(-1);
            return run;
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /**
     * Continues a run from a checkpoint: {@code target} is a run folder (its latest valid checkpoint is used) or a
     * checkpoint file. The run's metric files are trimmed to the checkpoint's step and then appended to, so the
     * curves continue with no overlap or gap. A damaged or foreign checkpoint, or an unsafe change of settings, is
     * refused with the reason, and nothing is changed on disk.
     */
    public static TrainingRun resume(Path target, ResumeOptions options, DeviceDiscovery discovery)
            throws IOException, CheckpointException {
        return resume(target, options, discovery, RunFaults.NONE);
    }

    /** As {@link #resume(Path, ResumeOptions, DeviceDiscovery)}, with failures injected by a test. */
    public static TrainingRun resume(Path target, ResumeOptions options, DeviceDiscovery discovery, RunFaults faults)
            throws IOException, CheckpointException {
        // one writer per run folder: a folder in use is said so before anything else is looked at
        Path lockedDir = ResumePlanner.runDirOf(target);
        if (lockedDir != null && RunLock.isHeld(lockedDir)) {
            RunLock.acquire(lockedDir).close();
        }
        ResumePlanner.Plan plan = ResumePlanner.plan(target, options);
        RunConfig config = plan.config();
        Checkpoint c = plan.contents().checkpoint();
        NcclReport nccl = NcclEnvironment.apply(config.nccl(), Nd4jRuntime.isLoaded());
        DeviceResolver.Resolved devices = RunDevices.resolve(config.devices(), discovery);
        if (c.batchInEpoch() > 0
                && c.workers() != devices.workers()
                && !config.parallel().synchronous()) {
            throw new InvalidConfigException(
                    "devices",
                    "the checkpoint is in the middle of an epoch trained on " + c.workers()
                            + " device(s) with parameter averaging; continuing that epoch on " + devices.workers()
                            + " would change its "
                            + "rounds. Resume from an end-of-epoch checkpoint (traindeck checkpoints " + plan.runDir()
                            + ") to change the devices");
        }
        Path runDir = plan.runDir();
        // one writer per run folder: taken before anything in it changes
        RunLock lock = RunLock.acquire(runDir);
        Path resumeConfig = null;
        try {
            int attempt = 1;
            while (Files.exists(RunFolder.of(runDir).resumeConfig(attempt))) {
                attempt++;
            }
            resumeConfig = writeResumeConfig(RunFolder.of(runDir).resumeConfig(attempt), config);
            int dropped = MetricFiles.truncateAfter(runDir, c.globalStep());
            TrainingRun run =
                    new TrainingRun(config, runDir, devices, plan.contents(), faults, nccl, lock, SinkKinds.ALL);
            run.openSinks(c.globalStep());
            run.events.logLine(
                    "resuming from " + plan.checkpointFile() + " (stage " + c.stageName() + ", epoch " + (c.epoch() + 1)
                            + ", step " + c.globalStep() + "); " + dropped
                            + " metric line(s) after that step were moved to metrics.*.after-step-"
                            + c.globalStep() + ", to be recomputed");
            run.state.lastCheckpoint = plan.checkpointFile();
            return run.measuredBy(discovery);
        } catch (IOException | RuntimeException e) {
            // a resume that did not start leaves no config of its own (a later one would take its number)
            if (resumeConfig != null) {
                Files.deleteIfExists(resumeConfig);
            }
            lock.close();
            throw e;
        }
    }

    /** Written beside its name first, so that a full disk leaves no empty or partial config.resume behind. */
    private static Path writeResumeConfig(Path file, RunConfig config) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.writeString(tmp, ConfigWriter.toJsonWithAbsolutePaths(config), StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            return file;
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            String why = String.valueOf(e.getMessage());
            throw new IOException(
                    "cannot write " + file.getFileName() + " in " + file.getParent() + ": "
                            + (why.contains("No space left") ? "the disk is full" : why) + "; nothing was changed",
                    e);
        }
    }

    private void openSinks(long restartStep) throws IOException {
        new CheckpointStore(runDir).removeLeftovers();
        subscribe(events.log(), RunFolder.LOG);
        RunFolder folder = RunFolder.of(runDir);
        for (SinkKind kind : sinkKinds) {
            if (kind.on(config)) {
                EventListener sink = kind.open(folder, config, restartStep);
                if (sink instanceof FlushingSink flushing) {
                    subscribe(flushing, kind.file());
                } else {
                    bus.subscribe(sink, EventBus.Delivery.LOSSLESS);
                }
            }
        }
    }

    private void subscribe(FlushingSink sink, String file) {
        sink.onFailure(e -> events.fileFailed(file, e));
        bus.subscribe(sink, EventBus.Delivery.LOSSLESS);
    }

    @Override
    public Path runDir() {
        return runDir;
    }

    @Override
    public RunConfig config() {
        return config;
    }

    /** What became of the config's NCCL toggles (set before this run's ND4J use, or needing a restart). */
    @Override
    public NcclReport ncclReport() {
        return ncclReport;
    }

    /** Adds a listener; call before {@link #start()} to see every event. */
    @Override
    public EventBus.Subscription subscribe(EventListener listener, EventBus.Delivery delivery) {
        return bus.subscribe(listener, delivery);
    }

    /** Trains on a new background thread. */
    @Override
    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("this run has already been started");
        }
        thread = new Thread(this::runHere, "traindeck-train-" + config.name());
        thread.start();
    }

    /** The global step the run has reached (steps done). */
    @Override
    public long currentStep() {
        return state.globalStep;
    }

    /** Asks the run to stop after the current step; it saves a checkpoint, and {@link #await()} returns STOPPED. */
    @Override
    public void requestStop() {
        state.stopRequested = true;
    }

    @Override
    public CompletableFuture<RunResult> completion() {
        return result;
    }

    @Override
    public synchronized RunResult giveUp(String why) {
        if (!result.isDone()) {
            // a step or a write may still finish on the training thread: nothing of it is published any more
            state.abandoned = true;
            Checkpoint.Listed newest = newestCheckpoint();
            String message = why + "; "
                    + (newest == null
                            ? "no checkpoint was written: the steps trained are lost"
                            : "its newest checkpoint is " + newest.file().getFileName() + " (step "
                                    + newest.checkpoint().globalStep() + ")");
            events.lifecycle(LifecycleEvent.Kind.RUN_STOPPED, message);
            finish(
                    new RunResult(
                            RunResult.Status.STOPPED,
                            message,
                            runDir,
                            state.globalStep,
                            state.elapsed(),
                            events.lastMetrics(),
                            newest == null ? null : newest.file()),
                    false);
        }
        return result.getNow(null);
    }

    /** The newest complete checkpoint a resume would take (a write in progress is no checkpoint yet), or null. */
    private Checkpoint.Listed newestCheckpoint() {
        try {
            return new CheckpointStore(runDir)
                    .list().stream()
                            .filter(l -> l.isValid()
                                    && l.foreign() == null
                                    && l.file().getFileName().toString().startsWith("step-"))
                            .max(Comparator.comparingLong(l -> l.checkpoint().globalStep()))
                            .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** The energy meter reads the GPUs through {@code discovery}'s nvidia-smi and the CPU through its powercap folder. */
    private TrainingRun measuredBy(DeviceDiscovery discovery) {
        energySources = new EnergyMeter.Sources(discovery.smi(), discovery.probe(), discovery.powercapRoot());
        return this;
    }

    /** Trains on the calling thread and returns how the run ended. Never throws for a training problem. */
    public RunResult runHere() {
        RunResult outcome = new RunSession(
                        config,
                        runDir,
                        events,
                        devices,
                        resumeFrom,
                        faults,
                        state,
                        ncclReport,
                        early -> finish(early, false))
                .withEnergy(energySources)
                .withPrepared(start, work)
                .run();
        if (start != null) {
            start.loaded().close(); // closed by the stages already, unless the run failed before them
            start = null;
        }
        finish(outcome, true);
        return result.getNow(outcome);
    }

    /** Ends the run once: the first outcome (the loop's, or the watchdog's) wins. */
    /** @param trainingEnded the training thread is done with the folder (not so when the watchdog gives the run up) */
    private synchronized void finish(RunResult outcome, boolean trainingEnded) {
        if (result.isDone()) {
            return;
        }
        bus.close();
        lock.close();
        if (trainingEnded
                && resumeFrom == null
                && outcome.status() == RunResult.Status.FAILED
                && outcome.steps() == 0
                && outcome.lastCheckpoint() == null) {
            outcome = removeFailedStart(outcome);
        }
        result.complete(outcome);
    }

    /**
     * A new run that failed before its first step (unreadable data, say) leaves nothing behind: its folder held only
     * what this start created, so it is removed rather than left as an empty run among the user's runs.
     */
    private RunResult removeFailedStart(RunResult outcome) {
        try (Stream<Path> all = Files.walk(runDir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
            return new RunResult(
                    outcome.status(),
                    outcome.message() + " (nothing was trained; the run folder " + runDir + " was removed)",
                    runDir,
                    0,
                    outcome.elapsedSeconds(),
                    outcome.lastMetrics(),
                    null);
        } catch (IOException e) {
            return outcome;
        }
    }
}
