package org.traindeck.engine.train;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.LayerHealthConfig;
import org.traindeck.engine.config.PathEncoding;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.devices.energy.EnergyMeter;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.parallel.DevicePlacement;
import org.traindeck.engine.parallel.Watchdog;
import org.traindeck.engine.train.batch.PreparedStart;
import org.traindeck.engine.train.batch.StageSetup;
import org.traindeck.engine.train.callback.Callbacks;
import org.traindeck.engine.train.callback.CheckpointCallback;
import org.traindeck.engine.train.callback.CheckpointWriter;
import org.traindeck.engine.train.callback.DiffusionSamplingCallback;
import org.traindeck.engine.train.callback.EmaCallback;
import org.traindeck.engine.train.callback.LayerHealthCallback;
import org.traindeck.engine.train.callback.MetricWindows;
import org.traindeck.engine.train.callback.NonFinitePolicy;
import org.traindeck.engine.train.callback.OneDnnWatch;
import org.traindeck.engine.train.callback.SamplePredictionsCallback;
import org.traindeck.engine.train.callback.TrainingCallback;
import org.traindeck.engine.train.callback.ValidationCallback;
import org.traindeck.engine.train.callback.WatchdogCallback;
import org.traindeck.engine.train.callback.WeightEma;
import org.traindeck.engine.train.resume.ResumePoint;
import org.traindeck.engine.train.samples.GeneratedText;
import org.traindeck.engine.train.samples.SamplePredictor;
import org.traindeck.engine.train.samples.SegmentationPictures;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.RunFailure;
import org.traindeck.engine.train.state.StartWork;
import org.traindeck.engine.train.state.TrainingState;

/**
 * One execution of a run on the calling thread: ND4J and the devices, the policies around the loop, the trainer, the
 * watchdog, and how the run ended. Never throws for a training problem: it becomes the run's FAILED result.
 */
final class RunSession {

    private static final Logger LOG = LoggerFactory.getLogger(RunSession.class);

    private final RunConfig config;
    private final Path runDir;
    private final RunEvents events;
    private final DeviceResolver.Resolved devices;
    private final CheckpointFiles.Contents resumeFrom;
    private final RunFaults faults;
    private final TrainingState state;
    private final NcclReport nccl;
    private final Consumer<RunResult> finishEarly;
    private volatile Watchdog watchdog;
    private EnergyMeter.Sources energy;
    private RunEnergy runEnergy;
    private PreparedStart start;
    private StartWork work = StartWork.NONE;

    /** @param finishEarly ends the run at once when the watchdog gives it up, while the training thread is stuck */
    RunSession(
            RunConfig config,
            Path runDir,
            RunEvents events,
            DeviceResolver.Resolved devices,
            CheckpointFiles.Contents resumeFrom,
            RunFaults faults,
            TrainingState state,
            NcclReport nccl,
            Consumer<RunResult> finishEarly) {
        this.config = config;
        this.runDir = runDir;
        this.events = events;
        this.devices = devices;
        this.resumeFrom = resumeFrom;
        this.faults = faults;
        this.state = state;
        this.nccl = nccl;
        this.finishEarly = finishEarly;
    }

    /**
     * @param start what preparing the run read and compiled, for the run to use; null: none
     * @param work  told of each compilation and data read
     */
    RunSession withPrepared(PreparedStart start, StartWork work) {
        this.start = start;
        this.work = work;
        return this;
    }

    /** @param sources where the run's energy is read from; null: not measured */
    RunSession withEnergy(EnergyMeter.Sources sources) {
        this.energy = sources;
        return this;
    }

    RunResult run() {
        state.startClock();
        runEnergy = RunEnergy.start(energy, config, devices, events);
        int timeout = config.effectiveStepTimeoutSeconds();
        if (timeout > 0) {
            watchdog = new Watchdog(timeout, this::onHang);
            watchdog.context("the run's start (loading data, building the model)");
            watchdog.pause(true);
            watchdog.start();
        }
        RunResult outcome;
        try {
            Trainer.Ending ending;
            try {
                ending = train();
            } finally {
                runEnergy.report(runDir);
            }
            outcome = outcome(ending.status(), ending.message());
        } catch (InvalidConfigException e) {
            outcome = fail("invalid input: " + e.getMessage(), e);
        } catch (RunFailure e) {
            outcome = fail(e.getMessage(), e);
        } catch (InvalidPathException e) {
            outcome = fail("invalid input: " + PathEncoding.advice(e), new InvalidConfigException("", e.getMessage()));
        } catch (OutOfMemoryError e) {
            outcome = fail("out of memory: use a smaller batch size or model, or give Java more memory (-Xmx)", e);
        } catch (InternalError e) {
            // how the JVM reports a read from a memory-mapped file that has since shrunk (SIGBUS)
            outcome = fail(
                    "the data could not be read: a memory-mapped data file was truncated or replaced while training ("
                            + e.getMessage() + ")",
                    e);
        } catch (RuntimeException | Error e) {
            // an Error must end the run too: a training thread that dies silently leaves everyone waiting for ever
            outcome = fail("training failed: " + e, e);
        }
        if (watchdog != null) {
            watchdog.close();
        }
        return outcome;
    }

    /** Sets the run up (devices, data, model, callbacks) and hands it to the trainer's loop. */
    private Trainer.Ending train() {
        DevicePlacement placement = RunPlacement.place(config, devices, nccl, events, runDir);
        try (StageSetup setup = new StageSetup(config, events, start, work)) {
            Trainer trainer = new Trainer(
                    config,
                    state,
                    events,
                    placement,
                    faults,
                    resumeFrom == null ? null : new ResumePoint(resumeFrom),
                    "cuda".equals(Nd4jRuntime.backendKind()),
                    RunPlacement.layerHelpers(config, events),
                    null);
            trainer.withPrepared(start, work).buildModel(setup);
            RunDataFiles.write(runDir, events, setup.load(0).train());
            WeightEma ema = new WeightEma();
            List<TrainingCallback> policies = policies(trainer, ema, checkpointWriter(trainer, ema), placement);
            SamplePredictionsCallback samples = samplePredictions(trainer);
            if (samples != null) {
                policies.add(samples);
            }
            try {
                return trainer.train(setup, new Callbacks(policies));
            } finally {
                if (samples != null) {
                    samples.close();
                }
            }
        }
    }

    private CheckpointWriter checkpointWriter(Trainer trainer, WeightEma ema) {
        return new CheckpointWriter(
                        config,
                        ConfigWriter.toJsonWithAbsolutePaths(config),
                        runDir,
                        events,
                        faults,
                        trainer::fingerprint)
                .withEma(ema);
    }

    /** The predictions on a few fixed samples that the run shows each epoch; null when the config turns them off. */
    private SamplePredictionsCallback samplePredictions(Trainer trainer) {
        if (!config.logging().samples().on()) {
            return null;
        }
        return new SamplePredictionsCallback(
                config.logging().samples(),
                config.seed(),
                events,
                trainer::net,
                new SamplePredictor(new SegmentationPictures(), new GeneratedText(config.seed())));
    }

    /** The callbacks of a run, in the order they see each event (validation before what reads its figures). */
    private List<TrainingCallback> policies(
            Trainer trainer, WeightEma ema, CheckpointWriter writer, DevicePlacement placement) {
        List<TrainingCallback> policies = new ArrayList<>();
        if (watchdog != null) {
            policies.add(new WatchdogCallback(watchdog));
        }
        policies.add(new NonFinitePolicy(events, config.skipNonFinite()));
        // a cluster run's devices are its executors: their throughput goes to the same charts as local devices'
        List<String> deviceIds = config.parallel().onCluster()
                ? IntStream.range(0, config.parallel().executors())
                        .mapToObj(i -> "executor" + i)
                        .toList()
                : placement.deviceIds();
        if (runEnergy.byStage() != null) {
            policies.add(runEnergy.byStage());
        }
        policies.add(new MetricWindows(
                events,
                deviceIds,
                config.logging().everySteps(),
                config.parallel().baselineSamplesPerSecond()));
        LayerHealthConfig layers = config.logging().layers();
        if (layers.figuresOn() || layers.histogramsOn()) {
            policies.add(new LayerHealthCallback(events, layers));
        }
        policies.add(new ValidationCallback(events, trainer::net));
        policies.add(new EmaCallback(ema, events, trainer::net, resumeFrom));
        policies.add(new DiffusionSamplingCallback(
                events, trainer::net, ema, config.seed(), config.logging().samples()));
        policies.add(new CheckpointCallback(writer, config.checkpoint(), trainer::net, watchdog));
        policies.add(new OneDnnWatch(events, trainer::net));
        return policies;
    }

    /** The watchdog tripped: the run is given up, with the diagnosis in the run log. */
    private void onHang(String diagnosis) {
        events.logLine("WATCHDOG: " + diagnosis);
        String message =
                "the run hung: " + diagnosis.lines().findFirst().orElse("") + " The thread dump is in train.log."
                        + (state.lastCheckpoint == null
                                ? ""
                                : " Resume from " + state.lastCheckpoint.getFileName() + " after finding the cause"
                                        + " (a stuck device or driver: try fewer devices, or \"NCCL_P2P_DISABLE\": \"1\").");
        events.lifecycle(LifecycleEvent.Kind.RUN_FAILED, message);
        finishEarly.accept(outcome(RunResult.Status.FAILED, message));
        // only now may a stalled thread that wakes up unwind: the watchdog's verdict is the run's result
        state.abandoned = true;
    }

    private RunResult fail(String message, Throwable cause) {
        if (state.abandoned) {
            return outcome(RunResult.Status.FAILED, message);
        }
        if (!(cause instanceof InvalidConfigException) && !(cause instanceof RunFailure)) {
            LOG.error("run {} failed", config.name(), cause);
        }
        String withCheckpoint = state.lastCheckpoint == null
                ? message
                : message + " (the last checkpoint, " + state.lastCheckpoint.getFileName()
                        + ", is intact: resume from it after fixing the cause)";
        events.lifecycle(LifecycleEvent.Kind.RUN_FAILED, withCheckpoint);
        return outcome(RunResult.Status.FAILED, withCheckpoint);
    }

    private RunResult outcome(RunResult.Status status, String message) {
        var problems = events.fileProblems();
        if (status == RunResult.Status.FINISHED && !problems.isEmpty()) {
            status = RunResult.Status.INCOMPLETE;
            message = "finished, but some files could not be written: "
                    + problems.entrySet().stream()
                            .map(p -> p.getKey() + " (" + p.getValue() + ")")
                            .reduce((a, b) -> a + "; " + b)
                            .orElse("");
            events.lifecycle(LifecycleEvent.Kind.WARNING, message);
        }
        return new RunResult(
                status, message, runDir, state.globalStep, state.elapsed(), events.lastMetrics(), state.lastCheckpoint);
    }
}
