package org.traindeck.engine.train;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.devices.energy.EnergyMeter;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.sinks.FlushingSink;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.sinks.RunLogSink;
import org.traindeck.engine.sinks.SinkKind;
import org.traindeck.engine.train.batch.PreparedStart;
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

    TrainingRun(
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
        return RunOpener.open(request);
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
        return RunOpener.resume(target, options, discovery, faults);
    }

    /** The checks' prepared start (the data read, the model compiled) and its work, for the run to train on. */
    TrainingRun withPrepared(PreparedStart prepared, StartWork preparedWork) {
        this.start = prepared;
        this.work = preparedWork;
        return this;
    }

    /** Says in the run's log where it resumes from, which is its last checkpoint until it writes another. */
    void resumingFrom(Path checkpointFile, String logLine) {
        events.logLine(logLine);
        state.lastCheckpoint = checkpointFile;
    }

    void openSinks(long restartStep) throws IOException {
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
            Checkpoint.Listed newest = RunFolderAtEnd.newestCheckpoint(runDir);
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

    /** The energy meter reads the GPUs through {@code discovery}'s nvidia-smi and the CPU through its powercap folder. */
    TrainingRun measuredBy(DeviceDiscovery discovery) {
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
            outcome = RunFolderAtEnd.removeFailedStart(runDir, outcome);
        }
        result.complete(outcome);
    }
}
