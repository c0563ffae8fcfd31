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
    public record ResumeOptions(Path config, Integer epochs) {
        public static final ResumeOptions NONE = new ResumeOptions(null, null);
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
    private long globalStep;
    private long startNanos;
    private double elapsedBefore;
    private long lastCheckpointNanos;
    private Path lastCheckpoint;
    private String modelFingerprint;
    private final Map<String, Double> best = new HashMap<>();
    private final Map<String, Double> lastMetrics = new LinkedHashMap<>();

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
        DeviceResolver.Resolved devices = resolveDevices(config.devices(), discovery);
        Path dir = RunDirectory.create(config.outputPath(), config.name());
        Files.writeString(dir.resolve("config.json"), ConfigWriter.toJsonWithAbsolutePaths(config), StandardCharsets.UTF_8);
        TrainingRun run = new TrainingRun(config, dir, new RunLogSink(dir.resolve("train.log")), devices, null);
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
        ResumeCheck.check(original, config, c);
        // the run keeps its folder and name
        config = new RunConfig(original.name(), runDir.getParent().toString(), config.seed(), config.devices(), config.model(),
                config.data(), config.stages(), config.logging(), config.checkpoint(), config.onNonFinite(), config.baseDir());
        DeviceResolver.Resolved devices = resolveDevices(config.devices(), discovery);
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
                all.isEmpty() ? runDir + " has no checkpoints (" + store.folder() + " is missing or empty)"
                        : runDir + " has no usable checkpoint: " + String.join("; ", all.stream().map(Checkpoint.Listed::problem).toList())));
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
        bus.close();
        result.complete(outcome);
        return outcome;
    }

    private RunResult fail(String message, Throwable cause) {
        if (!(cause instanceof InvalidConfigException) && !(cause instanceof RunFailure)) {
            LOG.error("run {} failed", config.name(), cause);
        }
        String withCheckpoint = lastCheckpoint == null ? message : message + " (the last checkpoint, " + lastCheckpoint.getFileName()
                + ", is intact: resume from it after fixing the cause)";
        publishLifecycle(LifecycleEvent.Kind.RUN_FAILED, withCheckpoint);
        return outcome(RunResult.Status.FAILED, withCheckpoint);
    }

    private RunResult outcome(RunResult.Status status, String message) {
        return new RunResult(status, message, runDir, globalStep, elapsed(), lastMetrics, lastCheckpoint);
    }

    /** Where the loop starts in a stage: from its beginning, or from a checkpoint inside it. */
    private record StageStart(int epoch, int stepInEpoch, long stageStartStep, double epochLossSum, long epochExamples) {}

    private RunResult train() throws RunFailure {
        Nd4jRuntime.init();
        devices.warnings().forEach(w -> publishLifecycle(LifecycleEvent.Kind.WARNING, w));
        String device = devices.deviceIds().get(0);
        if (!devices.isCpu()) {
            // Placing the model on a chosen GPU needs CUDA_VISIBLE_DEVICES set before ND4J loads (multi-device work).
            publishLifecycle(LifecycleEvent.Kind.WARNING, "this version trains on ND4J's current CUDA device (normally the first "
                    + "visible GPU); choosing " + String.join(", ", devices.deviceIds()) + " specifically comes with multi-device training");
            device = "cuda";
        }
        logLine("TrainDeck " + Version.get() + ", ND4J backend " + Nd4jRuntime.backendKind() + ", device " + device
                + ", run folder " + runDir);

        Map<DataConfig, DataLoader.Loaded> dataCache = new HashMap<>();
        List<StageConfig> stages = config.stages();
        DataLoader.Loaded firstData = load(dataCache, 0);
        ModelFactory.Shape shape = ModelFactory.Shape.of(firstData.train());
        boolean images = ModelFactory.wantsImages(config.model());
        ComputationGraph net = ModelFactory.build(config.model(), shape, config.seed());
        modelFingerprint = ConfigWriter.modelJson(config.model()) + "|" + shape;
        logLine("model " + config.model().type() + ": " + net.numParams() + " parameters; data: " + firstData.train()
                + (firstData.validation() == null ? ", no validation" : "; validation " + firstData.validation().size() + " samples"));

        int firstStage = 0;
        if (resumeFrom != null) {
            Checkpoint c = resumeFrom.checkpoint();
            if (!c.modelFingerprint().equals(modelFingerprint) || c.parameterCount() != net.numParams()) {
                throw new InvalidConfigException("model", "the checkpoint holds " + c.parameterCount() + " parameters of another "
                        + "architecture or data shape (" + c.modelFingerprint() + "); this config builds " + net.numParams()
                        + " (" + modelFingerprint + ")");
            }
            firstStage = c.stageIndex();
            if (c.epoch() >= stages.get(firstStage).epochs() && c.stepInEpoch() == 0) {
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
            BatchMaker batches = new BatchMaker(data.train(), images, stage.augmentation(), dataType);
            int batchesPerEpoch = batches.batchesPerEpoch(stage.batchSize());
            int k = stage.accumulationSteps();
            int stepsPerEpoch = (batchesPerEpoch + k - 1) / k;
            LrSchedule schedule = LrSchedule.forStage(stage, stepsPerEpoch);
            StageStart start = resumingHere ? restore(net, stepsPerEpoch) : new StageStart(0, 0, globalStep, 0, 0);
            long stageStart = start.stageStartStep();
            Optimizers.install(net, stage.optimizer(), new Nd4jStageSchedule(schedule, stageStart), keepState);
            if (resumingHere) {
                loadNumbers(net);
            }
            TrainingStep step = new TrainingStep(net, stage.optimizer().weightDecay() > 0);
            previousOptimizer = stage.optimizer();
            publishLifecycle(LifecycleEvent.Kind.STAGE_STARTED, String.format(Locale.ROOT,
                    "stage %d/%d \"%s\": %d epoch(s) × %d step(s), batch %d%s, %s lr %.3g (%s)%s, %s%s",
                    stageIndex + 1, stages.size(), stage.name(), stage.epochs(), stepsPerEpoch, stage.batchSize(),
                    k > 1 ? " × " + k + " accumulated = " + stage.batchSize() * k : "", stage.optimizer().type(),
                    stage.optimizer().learningRate(), stage.schedule().type(),
                    keepState ? ", optimizer state carried over" : "", stage.precision().json,
                    resumingHere ? String.format(Locale.ROOT, "; resuming at epoch %d, step %d", start.epoch() + 1, start.stepInEpoch()) : ""));
            publishMetric(MetricNames.STEPS_PER_EPOCH, stepsPerEpoch, null);

            int consecutiveSkips = 0;
            for (epoch = start.epoch(); epoch < stage.epochs(); epoch++) {
                boolean firstEpoch = epoch == start.epoch();
                long epochStart = System.nanoTime();
                int[] order = BatchMaker.epochOrder(data.train().size(), config.dataFor(stage).shuffle(), config.seed(), stageIndex, epoch);
                double epochLossSum = firstEpoch ? start.epochLossSum() : 0;
                long epochExamples = firstEpoch ? start.epochExamples() : 0;
                double windowLoss = 0;
                long windowExamples = 0;
                int windowSteps = 0;
                double windowNorm = 0;
                long windowStart = System.nanoTime();
                for (int s = firstEpoch ? start.stepInEpoch() : 0; s < stepsPerEpoch; s++) {
                    if (stopRequested) {
                        saveCheckpoint(net, checkpoints.regularFile(globalStep), "stop", stageIndex, epoch, s, stageStart,
                                epochLossSum, epochExamples);
                        publishLifecycle(LifecycleEvent.Kind.RUN_STOPPED, "stopped by request at step " + globalStep
                                + (lastCheckpoint != null ? "; resume from " + lastCheckpoint.getFileName() : ""));
                        return outcome(RunResult.Status.STOPPED, "stopped at step " + globalStep);
                    }
                    List<BatchMaker.Batch> micro = new ArrayList<>(k);
                    for (int b = s * k; b < Math.min((s + 1) * k, batchesPerEpoch); b++) {
                        micro.add(batches.batch(order, b, stage.batchSize(), config.seed(), stageIndex, epoch, true));
                    }
                    double lr = schedule.lrAt(globalStep - stageStart);
                    // Random numbers (dropout) as a function of the step, so that a resumed run draws the same ones.
                    Nd4j.getRandom().setSeed(config.seed() * 0x9E3779B97F4A7C15L + globalStep);
                    TrainingStep.Result r = step.step(micro, (int) globalStep, epoch, stage.clipNorm(),
                            globalStep + 1 == FaultInjection.nanAtStep());
                    globalStep++;
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
                    epochLossSum += r.loss() * r.examples();
                    epochExamples += r.examples();
                    windowLoss += r.loss() * r.examples();
                    windowExamples += r.examples();
                    windowNorm += r.gradNorm();
                    windowSteps++;
                    if (globalStep % config.logging().everySteps() == 0 || s == stepsPerEpoch - 1) {
                        long now = System.nanoTime();
                        if (windowExamples > 0) {
                            publishMetric(MetricNames.TRAIN_LOSS, windowLoss / windowExamples, null);
                            publishMetric(MetricNames.LR, lr, null);
                            publishMetric(MetricNames.GRAD_NORM, windowNorm / windowSteps, null);
                            publishMetric(MetricNames.THROUGHPUT, windowExamples / Math.max(1e-9, (now - windowStart) / 1e9), null);
                        }
                        windowLoss = 0;
                        windowExamples = 0;
                        windowNorm = 0;
                        windowSteps = 0;
                        windowStart = now;
                    }
                    double minutes = config.checkpoint().everyMinutes();
                    if (minutes > 0 && s < stepsPerEpoch - 1 && System.nanoTime() - lastCheckpointNanos >= minutes * 60e9) {
                        if (!saveCheckpoint(net, checkpoints.regularFile(globalStep), "time", stageIndex, epoch, s + 1,
                                stageStart, epochLossSum, epochExamples)) {
                            return stoppedForCheckpoint();
                        }
                    }
                }
                double epochSeconds = (System.nanoTime() - epochStart) / 1e9;
                publishMetric(MetricNames.TRAIN_EPOCH_LOSS, epochLossSum / Math.max(1, epochExamples), null);
                publishMetric(MetricNames.EPOCH_TIME, epochSeconds, null);
                boolean lastEpoch = epoch == stage.epochs() - 1;
                int interval = stage.validationInterval();
                Map<String, Double> epochMetrics = new HashMap<>();
                epochMetrics.put(MetricNames.TRAIN_EPOCH_LOSS, epochLossSum / Math.max(1, epochExamples));
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
                            && !saveCheckpoint(net, checkpoints.bestFile(stage.name()), "best", stageIndex, epoch + 1, 0, stageStart, 0, 0)) {
                        return stoppedForCheckpoint();
                    }
                }
                int every = config.checkpoint().everyEpochs();
                if (lastEpoch || (every > 0 && (epoch + 1) % every == 0)) {
                    if (!saveCheckpoint(net, checkpoints.regularFile(globalStep), lastEpoch ? "stage-end" : "epoch", stageIndex,
                            epoch + 1, 0, stageStart, 0, 0)) {
                        return stoppedForCheckpoint();
                    }
                }
            }
            epoch = stage.epochs() - 1;
            publishLifecycle(LifecycleEvent.Kind.STAGE_FINISHED, "stage \"" + stage.name() + "\" finished");
        }
        stageIndex = stages.size() - 1;
        publishLifecycle(LifecycleEvent.Kind.RUN_FINISHED, String.format(Locale.ROOT, "finished %d step(s) in %.1f s",
                globalStep, elapsed()));
        return outcome(RunResult.Status.FINISHED, "finished");
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

    /** The position and counters of the checkpoint being resumed. */
    private StageStart restore(ComputationGraph net, int stepsPerEpoch) {
        Checkpoint c = resumeFrom.checkpoint();
        if (c.stepInEpoch() > stepsPerEpoch) {
            throw new InvalidConfigException("stages[" + c.stageIndex() + "]", "the checkpoint is at step " + c.stepInEpoch()
                    + " of an epoch, but this config's epochs have only " + stepsPerEpoch + " steps");
        }
        return new StageStart(c.epoch(), c.stepInEpoch(), c.stageStartStep(), c.epochLossSum(), c.epochExamples());
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
    private boolean saveCheckpoint(ComputationGraph net, Path file, String reason, int atStage, int atEpoch, int atStep,
                                   long stageStart, double epochLossSum, long epochExamples) {
        try {
            float[] params = net.params().castTo(DataType.FLOAT).toFloatVector();
            INDArray state = net.getUpdater().getStateViewArray();
            float[] updater = state == null ? new float[0] : state.castTo(DataType.FLOAT).toFloatVector();
            Checkpoint c = new Checkpoint(Checkpoint.FORMAT_VERSION, config.name(), stageName, atStage, atEpoch, atStep,
                    globalStep, stageStart, elapsed(), epochLossSum, epochExamples, best, modelFingerprint, params.length,
                    updater.length, net.getConfiguration().getDataType().name(), reason, System.currentTimeMillis());
            CheckpointFiles.write(file, c, ConfigWriter.toJsonWithAbsolutePaths(config), params, updater);
            lastCheckpointNanos = System.nanoTime();
            if (!"best".equals(reason)) {
                lastCheckpoint = file;
                checkpoints.prune(config.checkpoint().keepLast());
            }
            publishLifecycle(LifecycleEvent.Kind.CHECKPOINT_SAVED, reason + " checkpoint " + runDir.relativize(file));
            return true;
        } catch (IOException | RuntimeException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            if (why.contains("No space left")) {
                why = "the disk is full (" + why + ")";
            }
            publishLifecycle(LifecycleEvent.Kind.WARNING, "the " + reason + " checkpoint at step " + globalStep + " could not be written: "
                    + why + ". " + (lastCheckpoint == null ? "No earlier checkpoint exists." : "The previous checkpoint, "
                    + lastCheckpoint.getFileName() + ", is intact."));
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
