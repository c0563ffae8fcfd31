package org.traindeck.engine.train;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.Version;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.checkpoint.FaultInjection;
import org.traindeck.engine.config.ConfigWriter;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.model.ModelFactory;
import org.traindeck.engine.parallel.CudaPeerAccess;
import org.traindeck.engine.parallel.NcclEnvironment;
import org.traindeck.engine.parallel.NcclReport;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.parallel.Watchdog;
import org.traindeck.engine.schedule.LrSchedule;
import org.traindeck.engine.schedule.Nd4jStageSchedule;
import org.traindeck.engine.sinks.CsvSink;
import org.traindeck.engine.sinks.JsonlSink;
import org.traindeck.engine.sinks.RunDirectory;
import org.traindeck.engine.sinks.RunLogSink;
import org.traindeck.engine.sinks.TensorBoardSink;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One training run: its folder, its event stream and the training loop. The loop drives epochs, the global step and
 * the learning-rate schedule itself (never DL4J's counters), publishes metric events without waiting on any
 * listener, writes crash-safe checkpoints, and can be stopped between two steps. A run can be resumed from any of
 * its checkpoints and then continues exactly where it was: same data order, same random numbers, same steps.
 *
 * <pre>
 * TrainingRun run = TrainingRun.prepare(config);   // creates the run folder and its files
 * run.subscribe(listener, EventBus.Delivery.DROP_WHEN_BEHIND);
 * run.start();                                     // trains on a background thread
 * RunResult result = run.await();
 * </pre>
 */
public final class TrainingRun {

    private static final Logger LOG = LoggerFactory.getLogger(TrainingRun.class);
    private static final int MAX_CONSECUTIVE_SKIPS = 20;

    /** What to change when resuming: a new config (checked for safety) and/or the current stage's epochs. */
    public record ResumeOptions(Path config, Integer epochs, DeviceSelection devices) {
        public static final ResumeOptions NONE = new ResumeOptions(null, null, null);

        public ResumeOptions(Path config, Integer epochs) {
            this(config, epochs, null);
        }
    }

    private final RunConfig config;
    private final Path runDir;
    private final EventBus bus = new EventBus();
    private final RunLogSink log;
    private final DeviceResolver.Resolved devices;
    private final CheckpointStore checkpoints;
    private final CheckpointFiles.Contents resumeFrom;
    private final CompletableFuture<RunResult> result = new CompletableFuture<>();
    private volatile boolean stopRequested;
    private volatile Thread thread;

    // position in the run, for events and checkpoints
    private String stageName = "";
    private int stageIndex;
    private int epoch;
    private volatile long globalStep;
    private long startNanos;
    private double elapsedBefore;
    private long lastCheckpointNanos;
    private Path lastCheckpoint;
    private String modelFingerprint;
    private final Map<String, Double> best = new HashMap<>();
    private final Map<String, Double> lastMetrics = java.util.Collections.synchronizedMap(new LinkedHashMap<>());

    private TrainingRun(RunConfig config, Path runDir, RunLogSink log, DeviceResolver.Resolved devices,
                        CheckpointFiles.Contents resumeFrom) {
        this.config = config;
        this.runDir = runDir;
        this.log = log;
        this.devices = devices;
        this.checkpoints = new CheckpointStore(runDir);
        this.resumeFrom = resumeFrom;
        if (resumeFrom != null) {
            Checkpoint c = resumeFrom.checkpoint();
            globalStep = c.globalStep();
            elapsedBefore = c.elapsedSeconds();
            best.putAll(c.best());
        }
    }

    /**
     * Checks what can be checked before any training (devices), creates a new run folder (never reusing one), writes
     * the resolved config.json and opens the configured metric files.
     */
    public static TrainingRun prepare(RunConfig config) throws IOException {
        return prepare(config, DeviceDiscovery.system());
    }

    /** As {@link #prepare(RunConfig)}, discovering devices with {@code discovery}. */
    public static TrainingRun prepare(RunConfig config, DeviceDiscovery discovery) throws IOException {
        NcclReport nccl = NcclEnvironment.apply(config.nccl(), Nd4jRuntime.isLoaded());
        DeviceResolver.Resolved devices = resolveDevices(config.devices(), discovery);
        Path dir = RunDirectory.create(config.outputPath(), config.name());
        Files.writeString(dir.resolve("config.json"), ConfigWriter.toJsonWithAbsolutePaths(config), StandardCharsets.UTF_8);
        TrainingRun run = new TrainingRun(config, dir, new RunLogSink(dir.resolve("train.log")), devices, null);
        run.ncclReport = nccl;
        run.openSinks(-1);
        return run;
    }

    /**
     * Continues a run from a checkpoint: {@code target} is a run folder (its latest valid checkpoint is used) or a
     * checkpoint file. The run's metric files are trimmed to the checkpoint's step and then appended to, so the
     * curves continue with no overlap or gap. A damaged or foreign checkpoint, or an unsafe change of settings, is
     * refused with the reason, and nothing is changed on disk.
     */
    public static TrainingRun resume(Path target, ResumeOptions options, DeviceDiscovery discovery)
            throws IOException, CheckpointException {
        Path file = locateCheckpoint(target);
        Path runDir = file.toAbsolutePath().getParent().getParent();
        CheckpointFiles.Contents contents = CheckpointFiles.read(file);
        Checkpoint c = contents.checkpoint();
        RunConfig original = org.traindeck.engine.config.ConfigParser.parse(contents.configJson(), runDir).orThrow();
        RunConfig config = original;
        if (options.config() != null) {
            config = org.traindeck.engine.config.ConfigParser.load(options.config()).orThrow();
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
        // the run keeps its folder and name
        config = new RunConfig(original.name(), runDir.getParent().toString(), config.seed(), config.devices(), config.model(),
                config.data(), config.stages(), config.logging(), config.checkpoint(), config.onNonFinite(), config.parallel(),
                config.nccl(), config.stepTimeoutSeconds(), config.baseDir());
        NcclReport nccl = NcclEnvironment.apply(config.nccl(), Nd4jRuntime.isLoaded());
        DeviceResolver.Resolved devices = resolveDevices(config.devices(), discovery);
        if (c.batchInEpoch() > 0 && c.workers() != devices.workers()) {
            throw new InvalidConfigException("devices", "the checkpoint is in the middle of an epoch trained on " + c.workers()
                    + " device(s); continuing that epoch on " + devices.workers() + " would change its batches. Resume from an "
                    + "end-of-epoch checkpoint (traindeck checkpoints " + runDir + ") to change the devices");
        }
        int attempt = 1;
        while (Files.exists(runDir.resolve("config.resume-" + attempt + ".json"))) {
            attempt++;
        }
        Files.writeString(runDir.resolve("config.resume-" + attempt + ".json"), ConfigWriter.toJsonWithAbsolutePaths(config),
                StandardCharsets.UTF_8);
        int dropped = org.traindeck.engine.sinks.MetricFiles.truncateAfter(runDir, c.globalStep());
        TrainingRun run = new TrainingRun(config, runDir, new RunLogSink(runDir.resolve("train.log")), devices, contents);
        run.logLine("resuming from " + file + " (stage " + c.stageName() + ", epoch " + (c.epoch() + 1) + ", step "
                + c.globalStep() + "); " + dropped + " metric line(s) after that step were dropped, to be recomputed");
        run.ncclReport = nccl;
        run.openSinks(c.globalStep());
        run.lastCheckpoint = file;
        return run;
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

    private void openSinks(long restartStep) throws IOException {
        checkpoints.removeLeftovers();
        bus.subscribe(log, EventBus.Delivery.LOSSLESS);
        if (config.logging().jsonl()) {
            bus.subscribe(new JsonlSink(runDir.resolve("metrics.jsonl")), EventBus.Delivery.LOSSLESS);
        }
        if (config.logging().csv()) {
            bus.subscribe(new CsvSink(runDir.resolve("metrics.csv")), EventBus.Delivery.LOSSLESS);
        }
        if (config.logging().tensorboard()) {
            TensorBoardSink tb = new TensorBoardSink(runDir.resolve("tensorboard"));
            if (restartStep >= 0) {
                tb.markRestart(restartStep);
            }
            bus.subscribe(tb, EventBus.Delivery.LOSSLESS);
        }
    }

    /**
     * Resolves the config's devices against the machine before anything is created. GPU indices that do not exist,
     * are hidden by CUDA_VISIBLE_DEVICES or need a GPU backend this build lacks are refused with the reason.
     */
    static DeviceResolver.Resolved resolveDevices(DeviceSelection devices, DeviceDiscovery discovery) {
        if (devices.kind() == DeviceSelection.Kind.CPU) {
            return DeviceResolver.resolve(devices, null, null);
        }
        DeviceResolver.Resolved resolved = DeviceResolver.resolve(devices, discovery.discover(), System.getenv("CUDA_VISIBLE_DEVICES"));
        if (!resolved.isCpu() && "cpu".equals(Nd4jRuntime.backendKind())) {
            if (devices.kind() == DeviceSelection.Kind.ALL_GPUS) {
                List<String> warnings = new ArrayList<>(resolved.warnings());
                warnings.add("devices \"all\": this TrainDeck build uses ND4J's CPU backend, so the GPUs are not used: training on the CPU (build with mvn -Pcuda for GPUs)");
                return new DeviceResolver.Resolved(List.of(), warnings);
            }
            throw new InvalidConfigException("devices", "asks for GPU " + devices.gpuIndices()
                    + ", but this TrainDeck build uses ND4J's CPU backend (nd4j-native): use \"cpu\", or build with the cuda profile (mvn -Pcuda)");
        }
        return resolved;
    }

    public Path runDir() {
        return runDir;
    }

    public RunConfig config() {
        return config;
    }

    /** Adds a listener; call before {@link #start()} to see every event. */
    public EventBus.Subscription subscribe(EventListener listener, EventBus.Delivery delivery) {
        return bus.subscribe(listener, delivery);
    }

    /** Trains on a new background thread. */
    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("this run has already been started");
        }
        thread = new Thread(this::runHere, "traindeck-train-" + config.name());
        thread.start();
    }

    /** Asks the run to stop after the current step; it saves a checkpoint, and {@link #await()} returns STOPPED. */
    public void requestStop() {
        stopRequested = true;
    }

    public RunResult await() throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    public CompletableFuture<RunResult> completion() {
        return result;
    }

    /** Trains on the calling thread and returns how the run ended. Never throws for a training problem. */
    public RunResult runHere() {
        startNanos = System.nanoTime();
        lastCheckpointNanos = startNanos;
        int timeout = config.effectiveStepTimeoutSeconds();
        if (timeout > 0) {
            watchdog = new Watchdog(timeout, this::onHang);
            watchdog.context("the run's start (loading data, building the model)");
            watchdog.pause(true);
            watchdog.start();
        }
        RunResult outcome;
        try {
            outcome = train();
        } catch (InvalidConfigException e) {
            outcome = fail("invalid input: " + e.getMessage(), e);
        } catch (RunFailure e) {
            outcome = fail(e.getMessage(), e);
        } catch (OutOfMemoryError e) {
            outcome = fail("out of memory: use a smaller batch size or model, or give Java more memory (-Xmx)", e);
        } catch (RuntimeException e) {
            outcome = fail("training failed: " + e, e);
        }
        if (watchdog != null) {
            watchdog.close();
        }
        finish(outcome);
        return result.getNow(outcome);
    }

    /** Ends the run once: the first outcome (the loop's, or the watchdog's) wins. */
    private synchronized void finish(RunResult outcome) {
        if (result.isDone()) {
            return;
        }
        bus.close();
        result.complete(outcome);
    }

    private RunResult fail(String message, Throwable cause) {
        if (abandoned) {
            return outcome(RunResult.Status.FAILED, message);
        }
        if (!(cause instanceof InvalidConfigException) && !(cause instanceof RunFailure)) {
            LOG.error("run {} failed", config.name(), cause);
        }
        String withCheckpoint = lastCheckpoint == null ? message : message + " (the last checkpoint, " + lastCheckpoint.getFileName()
                + ", is intact: resume from it after fixing the cause)";
        publishLifecycle(LifecycleEvent.Kind.RUN_FAILED, withCheckpoint);
        return outcome(RunResult.Status.FAILED, withCheckpoint);
    }

    private RunResult outcome(RunResult.Status status, String message) {
        Map<String, Double> metrics;
        synchronized (lastMetrics) {
            metrics = new LinkedHashMap<>(lastMetrics);
        }
        return new RunResult(status, message, runDir, globalStep, elapsed(), metrics, lastCheckpoint);
    }

    /** The running epoch: where it is (batches done), its loss so far, and the metric window being averaged. */
    private static final class EpochState {
        int cursor;
        double lossSum;
        long examples;
        double windowLoss;
        long windowExamples;
        int windowSteps;
        double windowNorm;
        long windowStart = System.nanoTime();
        final long[] windowPerDevice;

        EpochState(int devices) {
            windowPerDevice = new long[devices];
        }
    }

    /**
     * A stage as it is being trained on the current tier: how many batches one step takes, the steps per epoch and
     * the learning-rate schedule. Re-planned when the tier changes, from the stage's progress, so that the learning
     * rate follows how far through the stage the run is, whatever the number of devices.
     */
    private final class StageRun {
        final StageConfig stage;
        final DataLoader.Loaded data;
        final BatchMaker batches;
        final int batchesPerEpoch;
        final DataType dataType;
        Tier tier;
        int workers;
        int batchesPerStep;
        int stepsPerEpoch;
        LrSchedule schedule;
        long stageStart;

        StageRun(StageConfig stage, DataLoader.Loaded data, BatchMaker batches, DataType dataType) {
            this.stage = stage;
            this.data = data;
            this.batches = batches;
            this.batchesPerEpoch = batches.batchesPerEpoch(stage.batchSize());
            this.dataType = dataType;
        }

        /** Plans the stage for {@code newTier}, the run being at (epoch, cursor) of the stage now. */
        void plan(Tier newTier, int atEpoch, int cursor) {
            tier = newTier;
            workers = newTier.parallel() ? devices.workers() : 1;
            batchesPerStep = newTier.parallel() ? workers : stage.accumulationSteps();
            stepsPerEpoch = (batchesPerEpoch + batchesPerStep - 1) / batchesPerStep;
            double factor = config.parallel().lrFactor(workers);
            LrSchedule base = LrSchedule.forStage(stage, stepsPerEpoch);
            schedule = new LrSchedule(base.kind(), base.baseLr() * factor, base.totalSteps(), base.warmupSteps(),
                    base.stepEvery(), base.gamma(), base.minLr() * factor);
            stageStart = globalStep - ((long) atEpoch * stepsPerEpoch + (cursor + batchesPerStep - 1) / batchesPerStep);
        }

        String describe() {
            return tier.description + " on " + (tier.parallel() ? String.join(", ", devices.deviceIds()) : devices.deviceIds().get(0));
        }
    }

    private ComputationGraph net;
    private List<Tier> chain;
    private int tierIndex;
    private volatile Watchdog watchdog;
    private volatile boolean abandoned;
    private NcclReport ncclReport;

    /** What became of the config's NCCL toggles (set before this run's ND4J use, or needing a restart). */
    public NcclReport ncclReport() {
        return ncclReport;
    }

    private RunResult train() throws RunFailure {
        Nd4jRuntime.init();
        devices.warnings().forEach(w -> publishLifecycle(LifecycleEvent.Kind.WARNING, w));
        if (ncclReport != null) {
            for (NcclReport.Entry e : ncclReport.entries()) {
                logLine("environment " + e.name() + "=" + e.value() + ": " + e.status() + " (" + e.detail() + ")");
                if (e.status() == NcclReport.Status.NEEDS_RESTART || e.status() == NcclReport.Status.FAILED) {
                    publishLifecycle(LifecycleEvent.Kind.WARNING, e.name() + ": " + e.detail());
                }
            }
        }
        if (config.nccl().p2pDisabled()) {
            // the DL4J equivalent of NCCL_P2P_DISABLE=1
            Nd4j.getAffinityManager().allowCrossDeviceAccess(false);
        }
        String device = String.join(", ", devices.deviceIds());
        if (!devices.isCpu()) {
            // Placing replicas on chosen GPUs needs CUDA_VISIBLE_DEVICES set before ND4J loads.
            publishLifecycle(LifecycleEvent.Kind.WARNING, "this version places work on ND4J's CUDA devices in their own order "
                    + "(normally the visible GPUs from the first); set CUDA_VISIBLE_DEVICES before starting TrainDeck to choose them");
        }
        logLine("TrainDeck " + Version.get() + ", ND4J backend " + Nd4jRuntime.backendKind() + ", devices " + device
                + ", run folder " + runDir);

        Map<DataConfig, DataLoader.Loaded> dataCache = new HashMap<>();
        List<StageConfig> stages = config.stages();
        pauseWatchdog(true);
        DataLoader.Loaded firstData = load(dataCache, 0);
        ModelFactory.Shape shape = ModelFactory.Shape.of(firstData.train());
        boolean images = ModelFactory.wantsImages(config.model());
        net = ModelFactory.build(config.model(), shape, config.seed());
        modelFingerprint = ConfigWriter.modelJson(config.model()) + "|" + shape;
        logLine("model " + config.model().type() + ": " + net.numParams() + " parameters; data: " + firstData.train()
                + (firstData.validation() == null ? ", no validation" : "; validation " + firstData.validation().size() + " samples"));
        chain = Tier.chain(devices.workers(), config.parallel().mode(), config.nccl().p2pDisabled(), config.parallel().fallback());
        tierIndex = 0;

        int firstStage = 0;
        if (resumeFrom != null) {
            Checkpoint c = resumeFrom.checkpoint();
            if (!c.modelFingerprint().equals(modelFingerprint) || c.parameterCount() != net.numParams()) {
                throw new InvalidConfigException("model", "the checkpoint holds " + c.parameterCount() + " parameters of another "
                        + "architecture or data shape (" + c.modelFingerprint() + "); this config builds " + net.numParams()
                        + " (" + modelFingerprint + ")");
            }
            firstStage = c.stageIndex();
            if (c.epoch() >= stages.get(firstStage).epochs() && c.batchInEpoch() == 0) {
                firstStage++;
            }
            if (firstStage >= stages.size()) {
                String done = "the run already finished at step " + c.globalStep() + ": give more epochs (--epochs N) or a config with more stages";
                publishLifecycle(LifecycleEvent.Kind.RUN_FINISHED, done);
                return outcome(RunResult.Status.FINISHED, done);
            }
            publishLifecycle(LifecycleEvent.Kind.RUN_RESUMED, "resumed " + config.model().type() + " (" + net.numParams()
                    + " parameters) at step " + c.globalStep() + " from " + lastCheckpoint.getFileName() + ", on " + device
                    + "; files in " + runDir);
        } else {
            publishLifecycle(LifecycleEvent.Kind.RUN_STARTED, "training " + config.model().type() + " (" + net.numParams()
                    + " parameters) on " + device + ", " + stages.size() + " stage(s); files in " + runDir);
        }

        OptimizerConfig previousOptimizer = firstStage > 0 ? stages.get(firstStage - 1).optimizer() : null;
        for (stageIndex = firstStage; stageIndex < stages.size(); stageIndex++) {
            StageConfig stage = stages.get(stageIndex);
            stageName = stage.name();
            epoch = 0;
            pauseWatchdog(true);
            DataLoader.Loaded data = load(dataCache, stageIndex);
            String mismatch = firstData.train().incompatibilityWith(data.train());
            if (mismatch != null) {
                throw new InvalidConfigException("stages[" + stageIndex + "].data.train",
                        "does not fit the model built for stage 1's data: it has " + mismatch);
            }
            if (stage.augmentation() != null && stage.augmentation().rotate90() && data.train().isImage()
                    && data.train().imageShape().height() != data.train().imageShape().width()) {
                throw new InvalidConfigException("stages[" + stageIndex + "].augmentation.rotate90",
                        "needs square images, but they are " + data.train().imageShape());
            }
            DataType dataType = stage.precision() == StageConfig.Precision.FLOAT16 ? DataType.HALF : DataType.FLOAT;
            if (net.getConfiguration().getDataType() != dataType) {
                // DL4J's conversion keeps the optimizer state
                net = net.convertDataType(dataType);
                logLine("stage " + stage.name() + ": network converted to " + dataType);
            }
            boolean resumingHere = resumeFrom != null && stageIndex == resumeFrom.checkpoint().stageIndex();
            boolean keepState = !resumingHere && stage.optimizer().sameStateShapeAs(previousOptimizer);
            StageRun run = new StageRun(stage, data, new BatchMaker(data.train(), images, stage.augmentation(), dataType), dataType);
            int startEpoch = 0;
            EpochState resumeState = null;
            if (resumingHere) {
                Checkpoint c = resumeFrom.checkpoint();
                startEpoch = c.epoch();
                resumeState = new EpochState(devices.workers());
                resumeState.cursor = c.batchInEpoch();
                resumeState.lossSum = c.epochLossSum();
                resumeState.examples = c.epochExamples();
                if (resumeState.cursor > run.batchesPerEpoch) {
                    throw new InvalidConfigException("stages[" + stageIndex + "]", "the checkpoint is at batch " + resumeState.cursor
                            + " of an epoch, but this config's epochs have only " + run.batchesPerEpoch + " batches");
                }
            }
            run.plan(chain.get(tierIndex), startEpoch, resumeState == null ? 0 : resumeState.cursor);
            Optimizers.install(net, stage.optimizer(), new Nd4jStageSchedule(run.schedule, run.stageStart), keepState);
            Optimizers.configureClipping(net, run.tier.parallel() ? stage.clipNorm() : 0);
            if (resumingHere) {
                loadNumbers(net);
            }
            previousOptimizer = stage.optimizer();
            int k = stage.accumulationSteps();
            publishLifecycle(LifecycleEvent.Kind.STAGE_STARTED, String.format(Locale.ROOT,
                    "stage %d/%d \"%s\": %d epoch(s) × %d step(s), batch %d%s, %s lr %.3g%s (%s)%s, %s%s",
                    stageIndex + 1, stages.size(), stage.name(), stage.epochs(), run.stepsPerEpoch, stage.batchSize(),
                    run.workers > 1 ? " per device × " + run.workers + " devices = global batch " + stage.batchSize() * run.workers
                            : k > 1 ? " × " + k + " accumulated = " + stage.batchSize() * k : "",
                    stage.optimizer().type(), run.schedule.baseLr(),
                    run.workers > 1 && !"none".equals(config.parallel().lrScaling())
                            ? String.format(Locale.ROOT, " (scaled ×%.3g, %s rule)", config.parallel().lrFactor(run.workers), config.parallel().lrScaling()) : "",
                    stage.schedule().type(), keepState ? ", optimizer state carried over" : "", stage.precision().json,
                    resumingHere ? String.format(Locale.ROOT, "; resuming at epoch %d, batch %d", startEpoch + 1, resumeState.cursor) : ""));
            publishTier(run);

            int consecutiveSkips = 0;
            for (epoch = startEpoch; epoch < stage.epochs(); epoch++) {
                EpochState state = epoch == startEpoch && resumeState != null ? resumeState : new EpochState(devices.workers());
                long epochStart = System.nanoTime();
                int[] order = BatchMaker.epochOrder(data.train().size(), config.dataFor(stage).shuffle(), config.seed(), stageIndex, epoch);
                while (state.cursor < run.batchesPerEpoch) {
                    if (stopRequested) {
                        saveCheckpoint(net, checkpoints.regularFile(globalStep), "stop", stageIndex, epoch, state.cursor,
                                run.stageStart, state.lossSum, state.examples, run.workers);
                        publishLifecycle(LifecycleEvent.Kind.RUN_STOPPED, "stopped by request at step " + globalStep
                                + (lastCheckpoint != null ? "; resume from " + lastCheckpoint.getFileName() : ""));
                        return outcome(RunResult.Status.STOPPED, "stopped at step " + globalStep);
                    }
                    try {
                        if (run.tier.parallel()) {
                            runParallel(run, order, state);
                        } else {
                            consecutiveSkips = runSingle(run, order, state, consecutiveSkips);
                        }
                    } catch (TierFailure failure) {
                        fallBack(run, failure, state);
                    } catch (CheckpointStop stop) {
                        return stoppedForCheckpoint();
                    }
                }
                double epochSeconds = (System.nanoTime() - epochStart) / 1e9;
                pauseWatchdog(true);
                publishMetric(MetricNames.TRAIN_EPOCH_LOSS, state.lossSum / Math.max(1, state.examples), null);
                publishMetric(MetricNames.EPOCH_TIME, epochSeconds, null);
                boolean lastEpoch = epoch == stage.epochs() - 1;
                int interval = stage.validationInterval();
                Map<String, Double> epochMetrics = new HashMap<>();
                epochMetrics.put(MetricNames.TRAIN_EPOCH_LOSS, state.lossSum / Math.max(1, state.examples));
                if (data.validation() != null && interval > 0 && ((epoch + 1) % interval == 0 || lastEpoch)) {
                    Map<String, Double> metrics = Evaluator.evaluate(net, data.validation(), images, dataType);
                    metrics.forEach((name, value) -> publishMetric(name, value, null));
                    epochMetrics.putAll(metrics);
                    if (!Double.isFinite(metrics.get(MetricNames.VAL_LOSS))) {
                        throw new RunFailure("the validation loss is " + metrics.get(MetricNames.VAL_LOSS) + " after epoch "
                                + (epoch + 1) + " of stage \"" + stage.name() + "\": the model diverged. Try a lower learning rate or gradient clipping");
                    }
                }
                publishLifecycle(LifecycleEvent.Kind.EPOCH_FINISHED, String.format(Locale.ROOT, "epoch %d/%d of \"%s\" in %.1f s",
                        epoch + 1, stage.epochs(), stage.name(), epochSeconds));
                Double monitored = epochMetrics.get(config.checkpoint().monitor());
                if (monitored != null && isBetter(monitored, best.get(stage.name()))) {
                    best.put(stage.name(), monitored);
                    if (config.checkpoint().keepBestPerStage()
                            && !saveCheckpoint(net, checkpoints.bestFile(stage.name()), "best", stageIndex, epoch + 1, 0, run.stageStart, 0, 0, run.workers)) {
                        return stoppedForCheckpoint();
                    }
                }
                int every = config.checkpoint().everyEpochs();
                if (lastEpoch || (every > 0 && (epoch + 1) % every == 0)) {
                    if (!saveCheckpoint(net, checkpoints.regularFile(globalStep), lastEpoch ? "stage-end" : "epoch", stageIndex,
                            epoch + 1, 0, run.stageStart, 0, 0, run.workers)) {
                        return stoppedForCheckpoint();
                    }
                }
                pauseWatchdog(false);
            }
            epoch = stage.epochs() - 1;
            publishLifecycle(LifecycleEvent.Kind.STAGE_FINISHED, "stage \"" + stage.name() + "\" finished");
        }
        stageIndex = stages.size() - 1;
        publishLifecycle(LifecycleEvent.Kind.RUN_FINISHED, String.format(Locale.ROOT, "finished %d step(s) in %.1f s",
                globalStep, elapsed()));
        return outcome(RunResult.Status.FINISHED, "finished");
    }

    /** Thrown out of a step loop when a checkpoint could not be written and the policy says stop. */
    private static final class CheckpointStop extends RuntimeException {
        CheckpointStop() {
            super(null, null, false, false);
        }
    }

    private void publishTier(StageRun run) {
        String why = run.workers > 1 && devices.isCpu() && run.tier == Tier.AVERAGING_P2P
                ? " (on the CPU, workers share memory: there is no peer-to-peer copy to use or avoid)" : "";
        publishLifecycle(LifecycleEvent.Kind.TIER_STARTED, "training with " + run.describe() + why);
        publishMetric(MetricNames.STEPS_PER_EPOCH, run.stepsPerEpoch, null);
        publishMetric(MetricNames.WORKERS, run.workers, null);
        publishMetric(MetricNames.GLOBAL_BATCH, (double) run.stage.batchSize() * (run.tier.parallel() ? run.workers : run.stage.accumulationSteps()), null);
        if (watchdog != null) {
            watchdog.context(run.describe() + " (stage \"" + run.stage.name() + "\", step " + globalStep + ")");
        }
    }

    /** One device, step by step, from the epoch's cursor to its end (or a stop request). */
    private int runSingle(StageRun run, int[] order, EpochState state, int consecutiveSkips) throws RunFailure {
        if (Tier.injectedFailure(run.tier, "failTiers")) {
            throw new TierFailure("injected failure setting up " + run.tier.description, true, null);
        }
        StageConfig stage = run.stage;
        TrainingStep step = new TrainingStep(net, stage.optimizer().weightDecay() > 0);
        pauseWatchdog(false);
        String deviceId = devices.deviceIds().get(0);
        while (state.cursor < run.batchesPerEpoch && !stopRequested) {
            List<BatchMaker.Batch> micro = new ArrayList<>(run.batchesPerStep);
            for (int b = state.cursor; b < Math.min(state.cursor + run.batchesPerStep, run.batchesPerEpoch); b++) {
                micro.add(run.batches.batch(order, b, stage.batchSize(), config.seed(), stageIndex, epoch, true));
            }
            double lr = run.schedule.lrAt(globalStep - run.stageStart);
            if (globalStep + 1 == Long.getLong("traindeck.inject.stallAtStep", -1)) {
                stall();
            }
            // Random numbers (dropout) as a function of the step, so that a resumed run draws the same ones.
            Nd4j.getRandom().setSeed(config.seed() * 0x9E3779B97F4A7C15L + globalStep);
            boolean publishes = (globalStep + 1) % config.logging().everySteps() == 0
                    || state.cursor + micro.size() >= run.batchesPerEpoch;
            TrainingStep.Result r = step.step(micro, (int) globalStep, epoch, stage.clipNorm(), publishes,
                    globalStep + 1 == FaultInjection.nanAtStep());
            globalStep++;
            state.cursor += micro.size();
            touchWatchdog();
            if (!r.applied()) {
                publishMetric(MetricNames.TRAIN_LOSS, r.loss(), null);
                String what = String.format(Locale.ROOT, "the loss became %s at step %d (stage \"%s\", epoch %d, learning rate %.3g)",
                        Double.isFinite(r.loss()) ? "finite but the gradient " + r.gradNorm() : String.valueOf(r.loss()),
                        globalStep, stage.name(), epoch + 1, lr);
                String advice = "Try a lower learning rate, gradient clipping (\"gradientClipping\": 1.0), "
                        + "or check the data for extreme or missing values";
                if (!config.skipNonFinite()) {
                    throw new RunFailure(what + ": training diverged and was stopped before the update. " + advice);
                }
                if (++consecutiveSkips > MAX_CONSECUTIVE_SKIPS) {
                    throw new RunFailure(what + ", and the " + MAX_CONSECUTIVE_SKIPS + " steps before it were skipped too: "
                            + "training diverged. " + advice);
                }
                publishLifecycle(LifecycleEvent.Kind.WARNING, what + ": batch skipped (onNonFinite: skip)");
                continue;
            }
            consecutiveSkips = 0;
            state.lossSum += r.loss() * r.examples();
            state.examples += r.examples();
            state.windowLoss += r.loss() * r.examples();
            state.windowExamples += r.examples();
            state.windowPerDevice[0] += r.examples();
            state.windowNorm = r.gradNorm();
            state.windowSteps++;
            if (globalStep % config.logging().everySteps() == 0 || state.cursor >= run.batchesPerEpoch) {
                publishWindow(state, lr, true, List.of(deviceId));
            }
            maybeTimedCheckpoint(run, state);
        }
        return consecutiveSkips;
    }

    /** Several devices with ParallelWrapper, from the epoch's cursor to its end (or a stop request). */
    private void runParallel(StageRun run, int[] order, EpochState state) {
        if (Tier.injectedFailure(run.tier, "failTiers")) {
            throw new TierFailure("injected failure setting up " + run.tier.description, true, null);
        }
        if (run.tier == Tier.AVERAGING_P2P && "cuda".equals(Nd4jRuntime.backendKind())) {
            String problem = CudaPeerAccess.selfTestAndConfigure(run.workers);
            if (problem != null) {
                throw new TierFailure("peer-to-peer self-test: " + problem, true, null);
            }
        } else if (run.tier == Tier.AVERAGING_NO_P2P) {
            Nd4j.getAffinityManager().allowCrossDeviceAccess(false);
        }
        // the last consistent state, to go back to if the workers fail in the middle of a round
        INDArray paramsBefore = net.params().dup();
        INDArray stateView = net.getUpdater().getStateViewArray();
        INDArray updaterBefore = stateView == null ? null : stateView.dup();
        long stepBefore = globalStep;
        int cursorBefore = state.cursor;
        double lossBefore = state.lossSum;
        long examplesBefore = state.examples;
        net.getConfiguration().setIterationCount((int) globalStep);
        pauseWatchdog(false);
        List<String> ids = devices.deviceIds();
        double[] lastLr = {0};
        try {
            ParallelEpoch.Outcome o = ParallelEpoch.run(net, run.tier, run.workers, config.parallel(), run.batches, order,
                    state.cursor, run.batchesPerEpoch, run.stage.batchSize(), config.seed(), stageIndex, epoch,
                    () -> stopRequested, (step, loss, examples, perWorker, nanos) -> {
                        synchronized (state) {
                            globalStep = step;
                            touchWatchdog();
                            state.lossSum += loss * examples;
                            state.examples += examples;
                            state.windowLoss += loss * examples;
                            state.windowExamples += examples;
                            for (int w = 0; w < perWorker.length && w < state.windowPerDevice.length; w++) {
                                state.windowPerDevice[w] += perWorker[w];
                            }
                            state.windowSteps++;
                            lastLr[0] = run.schedule.lrAt(step - 1 - run.stageStart);
                            boolean endOfEpoch = cursorBefore + (step - stepBefore) * run.workers >= run.batchesPerEpoch;
                            if (step % config.logging().everySteps() == 0 || endOfEpoch) {
                                publishWindow(state, lastLr[0], false, ids);
                            }
                        }
                    }, Long.getLong("traindeck.inject.failWorkerAtStep", -1));
            synchronized (state) {
                globalStep = stepBefore + o.rounds();
                state.cursor = cursorBefore + o.batchesConsumed();
                state.lossSum = lossBefore + o.lossSum();
                state.examples = examplesBefore + o.examples();
                if (state.windowSteps > 0) {
                    publishWindow(state, lastLr[0], false, ids);
                }
            }
        } catch (TierFailure f) {
            synchronized (state) {
                if (!f.consistent()) {
                    net.params().assign(paramsBefore);
                    if (updaterBefore != null) {
                        net.getUpdater().getStateViewArray().assign(updaterBefore);
                    }
                    globalStep = stepBefore;
                    state.cursor = cursorBefore;
                    state.lossSum = lossBefore;
                    state.examples = examplesBefore;
                    publishLifecycle(LifecycleEvent.Kind.REWIND, "going back to step " + stepBefore
                            + ", the last consistent state: the steps after it are trained again");
                } else {
                    state.cursor = cursorBefore + (int) (globalStep - stepBefore) * run.workers;
                }
                state.windowLoss = 0;
                state.windowExamples = 0;
                state.windowSteps = 0;
                java.util.Arrays.fill(state.windowPerDevice, 0);
            }
            throw f;
        }
    }

    /** Goes on with the next tier from where the failed one left a consistent model. */
    private void fallBack(StageRun run, TierFailure failure, EpochState state) throws RunFailure {
        Tier failed = run.tier;
        if (tierIndex + 1 >= chain.size()) {
            throw new RunFailure("every way of training failed; the last, " + failed.description + ": " + failure.getMessage()
                    + (config.parallel().fallback() ? "" : " (fallback is off: \"parallel\": {\"fallback\": true} lets the run go on with fewer devices)"));
        }
        tierIndex++;
        Tier next = chain.get(tierIndex);
        LOG.warn("tier {} failed: {}", failed, failure.getMessage(), failure.getCause());
        run.plan(next, epoch, state.cursor);
        Optimizers.install(net, run.stage.optimizer(), new Nd4jStageSchedule(run.schedule, run.stageStart), true);
        Optimizers.configureClipping(net, next.parallel() ? run.stage.clipNorm() : 0);
        net.getConfiguration().setIterationCount((int) globalStep);
        publishLifecycle(LifecycleEvent.Kind.FALLBACK, failed.description + " failed (" + failure.getMessage() + "): going on with "
                + next.description + " from step " + globalStep);
        publishTier(run);
    }

    private void publishWindow(EpochState state, double lr, boolean withNorm, List<String> ids) {
        long now = System.nanoTime();
        double seconds = Math.max(1e-9, (now - state.windowStart) / 1e9);
        if (state.windowExamples > 0) {
            double total = state.windowExamples / seconds;
            publishMetric(MetricNames.TRAIN_LOSS, state.windowLoss / state.windowExamples, null);
            publishMetric(MetricNames.LR, lr, null);
            if (withNorm && Double.isFinite(state.windowNorm)) {
                publishMetric(MetricNames.GRAD_NORM, state.windowNorm, null);
            }
            publishMetric(MetricNames.THROUGHPUT, total, null);
            int n = Math.min(ids.size(), state.windowPerDevice.length);
            for (int d = 0; d < n; d++) {
                if (state.windowPerDevice[d] > 0 || n > 1) {
                    publishMetric(MetricNames.THROUGHPUT, state.windowPerDevice[d] / seconds, ids.get(d));
                }
            }
            double baseline = config.parallel().baselineSamplesPerSecond();
            if (n > 1 && baseline > 0) {
                publishMetric(MetricNames.SCALING_EFFICIENCY, total / (n * baseline), null);
            }
        }
        state.windowLoss = 0;
        state.windowExamples = 0;
        state.windowNorm = 0;
        state.windowSteps = 0;
        java.util.Arrays.fill(state.windowPerDevice, 0);
        state.windowStart = now;
    }

    private void maybeTimedCheckpoint(StageRun run, EpochState state) {
        double minutes = config.checkpoint().everyMinutes();
        if (minutes > 0 && state.cursor < run.batchesPerEpoch && System.nanoTime() - lastCheckpointNanos >= minutes * 60e9) {
            if (!saveCheckpoint(net, checkpoints.regularFile(globalStep), "time", stageIndex, epoch, state.cursor,
                    run.stageStart, state.lossSum, state.examples, run.workers)) {
                throw new CheckpointStop();
            }
        }
    }

    /** The injected stall: a step that never finishes, until the watchdog gives the run up. */
    private void stall() throws RunFailure {
        while (!abandoned) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new RunFailure("abandoned after the watchdog tripped");
    }

    private void touchWatchdog() {
        Watchdog w = watchdog;
        if (w != null) {
            w.touch();
        }
    }

    private void pauseWatchdog(boolean pause) {
        Watchdog w = watchdog;
        if (w != null) {
            w.pause(pause);
        }
    }

    /** The watchdog tripped: the run is given up, with the diagnosis in the run log. */
    private void onHang(String diagnosis) {
        logLine("WATCHDOG: " + diagnosis);
        String message = "the run hung: " + diagnosis.lines().findFirst().orElse("") + " The thread dump is in train.log."
                + (lastCheckpoint == null ? "" : " Resume from " + lastCheckpoint.getFileName() + " after finding the cause"
                + " (a stuck device or driver: try fewer devices, or \"NCCL_P2P_DISABLE\": \"1\").");
        publishLifecycle(LifecycleEvent.Kind.RUN_FAILED, message);
        finish(outcome(RunResult.Status.FAILED, message));
        // only now may a stalled thread that wakes up unwind: the watchdog's verdict is the run's result
        abandoned = true;
    }

    private boolean isBetter(double value, Double previous) {
        if (previous == null) {
            return true;
        }
        return config.checkpoint().higherIsBetter() ? value > previous : value < previous;
    }

    private RunResult stoppedForCheckpoint() {
        String message = "stopped at step " + globalStep + " because a checkpoint could not be written (checkpoint.onWriteError: stop)";
        publishLifecycle(LifecycleEvent.Kind.RUN_STOPPED, message);
        return outcome(RunResult.Status.STOPPED, message);
    }

    /** Puts the checkpoint's parameters and optimizer state into the freshly built network. */
    private void loadNumbers(ComputationGraph net) {
        INDArray params = net.params();
        params.assign(Nd4j.create(resumeFrom.params(), params.shape(), DataType.FLOAT).castTo(params.dataType()));
        INDArray state = net.getUpdater().getStateViewArray();
        int stateLength = state == null ? 0 : (int) state.length();
        if (stateLength != resumeFrom.updaterState().length) {
            throw new InvalidConfigException("stages[" + stageIndex + "].optimizer", "the checkpoint's optimizer state has "
                    + resumeFrom.updaterState().length + " values, but this stage's optimizer needs " + stateLength
                    + ": the optimizer settings differ from when the checkpoint was made");
        }
        if (state != null) {
            state.assign(Nd4j.create(resumeFrom.updaterState(), state.shape(), DataType.FLOAT).castTo(state.dataType()));
        }
        net.getConfiguration().setIterationCount((int) globalStep);
    }

    /**
     * Writes a checkpoint whose position is where the run will continue. On failure the previous checkpoint stays,
     * the user is told, and the return value says whether to go on (false: stop, as the policy asks).
     */
    private boolean saveCheckpoint(ComputationGraph net, Path file, String reason, int atStage, int atEpoch, int atBatch,
                                   long stageStart, double epochLossSum, long epochExamples, int workers) {
        pauseWatchdog(true);
        try {
            float[] params = net.params().castTo(DataType.FLOAT).toFloatVector();
            INDArray state = net.getUpdater().getStateViewArray();
            float[] updater = state == null ? new float[0] : state.castTo(DataType.FLOAT).toFloatVector();
            Checkpoint c = new Checkpoint(Checkpoint.FORMAT_VERSION, config.name(), stageName, atStage, atEpoch, atBatch,
                    globalStep, stageStart, elapsed(), epochLossSum, epochExamples, best, modelFingerprint, params.length,
                    updater.length, net.getConfiguration().getDataType().name(), reason, System.currentTimeMillis(), workers);
            CheckpointFiles.write(file, c, ConfigWriter.toJsonWithAbsolutePaths(config), params, updater);
            lastCheckpointNanos = System.nanoTime();
            if (!"best".equals(reason)) {
                lastCheckpoint = file;
                checkpoints.prune(config.checkpoint().keepLast());
            }
            publishLifecycle(LifecycleEvent.Kind.CHECKPOINT_SAVED, reason + " checkpoint " + runDir.relativize(file));
            pauseWatchdog(false);
            return true;
        } catch (IOException | RuntimeException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            if (why.contains("No space left")) {
                why = "the disk is full (" + why + ")";
            }
            publishLifecycle(LifecycleEvent.Kind.WARNING, "the " + reason + " checkpoint at step " + globalStep + " could not be written: "
                    + why + ". " + (lastCheckpoint == null ? "No earlier checkpoint exists." : "The previous checkpoint, "
                    + lastCheckpoint.getFileName() + ", is intact."));
            pauseWatchdog(false);
            return !"stop".equals(config.checkpoint().onWriteError());
        }
    }

    private DataLoader.Loaded load(Map<DataConfig, DataLoader.Loaded> cache, int stage) {
        StageConfig s = config.stages().get(stage);
        DataConfig data = config.dataFor(s);
        String at = s.data() != null ? "stages[" + stage + "].data" : "data";
        return cache.computeIfAbsent(data, d -> DataLoader.load(config, d, at));
    }

    private double elapsed() {
        return elapsedBefore + (startNanos == 0 ? 0 : (System.nanoTime() - startNanos) / 1e9);
    }

    private void publishMetric(String name, double value, String device) {
        if (!name.equals(MetricNames.TRAIN_LOSS) && !name.equals(MetricNames.LR) && !name.equals(MetricNames.GRAD_NORM)) {
            lastMetrics.put(name, value);
        }
        publish(new MetricEvent(config.name(), stageName, stageIndex, epoch, globalStep, System.currentTimeMillis(),
                elapsed(), name, value, device));
    }

    private void publishLifecycle(LifecycleEvent.Kind kind, String message) {
        publish(new LifecycleEvent(config.name(), stageName, stageIndex, epoch, globalStep, System.currentTimeMillis(),
                elapsed(), kind, message));
    }

    private void publish(EngineEvent event) {
        bus.publish(event);
    }

    private void logLine(String text) {
        try {
            log.line(text);
        } catch (IOException e) {
            LOG.warn("cannot write the run log: {}", e.getMessage());
        }
    }
}
