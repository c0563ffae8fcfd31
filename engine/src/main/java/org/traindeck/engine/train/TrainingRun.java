package org.traindeck.engine.train;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.traindeck.engine.train.batch.StartChecks;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.StartWork;
import org.traindeck.engine.train.state.TrainingState;

/**
 * One training run: its folder, its event stream and its lifecycle (start, stop, await). The training itself is the
 * {@link Trainer}'s; this class wires the run folder, the metric files, the devices and the policies around it.
 *
 * <pre>
 * TrainingRun run = TrainingRun.open(RunRequest.of(config)); // checks, reads, compiles; opens the folder
 * run.subscribe(listener, EventBus.Delivery.DROP_WHEN_BEHIND);
 * run.start();                                     // trains on a background thread
 * RunResult result = run.await();
 * </pre>
 */
public final class TrainingRun implements LiveRun {

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
     * The one way a new run is made, whoever starts it (the CLI and the app through {@code Engine.openRun}, the queue,
     * a sweep's trial process, the bench, the cluster's driver). Refuses what would stop the run before anything is
     * written: the devices, then the model compiled against the data and each stage's fit in the devices' memory
     * (every problem, a line each). Reads the data and compiles the model once, for the run to train on; then creates
     * a new run folder (never reusing one) unless the request names one, writes the resolved config.json and opens
     * the configured metric files. {@link #start()} trains.
     *
     * @throws InvalidConfigException every problem that stops the run
     */
    public static TrainingRun open(RunRequest request) throws IOException {
        RunConfig config = request.config();
        // the NCCL variables and the CUDA device order go into the environment before ND4J loads
        NcclReport nccl = NcclEnvironment.apply(config.nccl(), Nd4jRuntime.isLoaded());
        DeviceResolver.Resolved devices = RunDevices.resolve(config.devices(), request.discovery());
        Nd4jRuntime.init();
        PreparedStart start = StartChecks.readAndCompile(request.parsed(), request.discovery(), request.work());
        try {
            Path dir = request.dir() != null ? request.dir() : RunDirectory.create(config.outputPath(), config.name());
            TrainingRun run = createIn(dir, config, devices, nccl, request.faults(), request.sinkKinds())
                    .measuredBy(request.discovery());
            run.start = start;
            run.work = request.work();
            return run;
        } catch (IOException | RuntimeException e) {
            start.loaded().close();
            throw e;
        }
    }

    /** Takes the folder's lock, writes its config.json and identity, and opens the metric files. */
    private static TrainingRun createIn(
            Path dir,
            RunConfig config,
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
        ResumePlanner.refuseIfInUse(target);
        ResumePlanner.Plan plan = ResumePlanner.plan(target, options);
        RunConfig config = plan.config();
        Checkpoint c = plan.contents().checkpoint();
        NcclReport nccl = NcclEnvironment.apply(config.nccl(), Nd4jRuntime.isLoaded());
        DeviceResolver.Resolved devices = RunDevices.resolve(config.devices(), discovery);
        ResumePlanner.checkMidEpochDevices(plan, devices.workers());
        Path runDir = plan.runDir();
        // one writer per run folder: taken before anything in it changes
        RunLock lock = RunLock.acquire(runDir);
        Path resumeConfig = null;
        try {
            resumeConfig = ResumeConfigFile.writeNext(runDir, config);
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
