package org.traindeck.engine.train;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.Version;
import org.traindeck.engine.config.ConfigWriter;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
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
 * listener, and can be stopped between two steps.
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

    private final RunConfig config;
    private final Path runDir;
    private final EventBus bus = new EventBus();
    private final RunLogSink log;
    private final DeviceResolver.Resolved devices;
    private final CompletableFuture<RunResult> result = new CompletableFuture<>();
    private volatile boolean stopRequested;
    private volatile Thread thread;

    // position in the run, for events
    private String stageName = "";
    private int stageIndex;
    private int epoch;
    private long globalStep;
    private long startNanos;
    private final Map<String, Double> lastMetrics = new LinkedHashMap<>();

    private TrainingRun(RunConfig config, Path runDir, RunLogSink log, DeviceResolver.Resolved devices) {
        this.config = config;
        this.devices = devices;
        this.runDir = runDir;
        this.log = log;
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
        RunLogSink log = new RunLogSink(dir.resolve("train.log"));
        TrainingRun run = new TrainingRun(config, dir, log, devices);
        run.bus.subscribe(log, EventBus.Delivery.LOSSLESS);
        if (config.logging().jsonl()) {
            run.bus.subscribe(new JsonlSink(dir.resolve("metrics.jsonl")), EventBus.Delivery.LOSSLESS);
        }
        if (config.logging().csv()) {
            run.bus.subscribe(new CsvSink(dir.resolve("metrics.csv")), EventBus.Delivery.LOSSLESS);
        }
        if (config.logging().tensorboard()) {
            run.bus.subscribe(new TensorBoardSink(dir.resolve("tensorboard")), EventBus.Delivery.LOSSLESS);
        }
        return run;
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

    /** Asks the run to stop after the current step; {@link #await()} then returns a STOPPED result. */
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
        publishLifecycle(LifecycleEvent.Kind.RUN_FAILED, message);
        return new RunResult(RunResult.Status.FAILED, message, runDir, globalStep, elapsed(), lastMetrics);
    }

    private RunResult train() throws RunFailure {
        Nd4jRuntime.init();
        Nd4j.getRandom().setSeed(config.seed());
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
        logLine("model " + config.model().type() + ": " + net.numParams() + " parameters; data: " + firstData.train()
                + (firstData.validation() == null ? ", no validation" : "; validation " + firstData.validation().size() + " samples"));
        publishLifecycle(LifecycleEvent.Kind.RUN_STARTED, "training " + config.model().type() + " (" + net.numParams()
                + " parameters) on " + device + ", " + stages.size() + " stage(s); files in " + runDir);

        OptimizerConfig previousOptimizer = null;
        TrainingStep step = new TrainingStep(net, false);
        for (stageIndex = 0; stageIndex < stages.size(); stageIndex++) {
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
                net = net.convertDataType(dataType);
                previousOptimizer = null;
                logLine("stage " + stage.name() + ": network converted to " + dataType + "; optimizer state starts fresh");
            }
            boolean keepState = stage.optimizer().sameStateShapeAs(previousOptimizer);
            BatchMaker batches = new BatchMaker(data.train(), images, stage.augmentation(), dataType);
            int batchesPerEpoch = batches.batchesPerEpoch(stage.batchSize());
            int k = stage.accumulationSteps();
            int stepsPerEpoch = (batchesPerEpoch + k - 1) / k;
            LrSchedule schedule = LrSchedule.forStage(stage, stepsPerEpoch);
            long stageStart = globalStep;
            Optimizers.install(net, stage.optimizer(), new Nd4jStageSchedule(schedule, stageStart), keepState);
            step = new TrainingStep(net, stage.optimizer().weightDecay() > 0);
            previousOptimizer = stage.optimizer();
            publishLifecycle(LifecycleEvent.Kind.STAGE_STARTED, String.format(Locale.ROOT,
                    "stage %d/%d \"%s\": %d epoch(s) × %d step(s), batch %d%s, %s lr %.3g (%s)%s, %s",
                    stageIndex + 1, stages.size(), stage.name(), stage.epochs(), stepsPerEpoch, stage.batchSize(),
                    k > 1 ? " × " + k + " accumulated = " + stage.batchSize() * k : "", stage.optimizer().type(),
                    stage.optimizer().learningRate(), stage.schedule().type(),
                    keepState ? ", optimizer state carried over" : "", stage.precision().json));
            publishMetric(MetricNames.STEPS_PER_EPOCH, stepsPerEpoch, null);

            for (epoch = 0; epoch < stage.epochs(); epoch++) {
                long epochStart = System.nanoTime();
                int[] order = BatchMaker.epochOrder(data.train().size(), config.dataFor(stage).shuffle(), config.seed(), stageIndex, epoch);
                double epochLossSum = 0;
                long epochExamples = 0;
                double windowLoss = 0;
                long windowExamples = 0;
                int windowSteps = 0;
                double windowNorm = 0;
                long windowStart = System.nanoTime();
                for (int s = 0; s < stepsPerEpoch; s++) {
                    if (stopRequested) {
                        publishLifecycle(LifecycleEvent.Kind.RUN_STOPPED, "stopped by request at step " + globalStep);
                        return new RunResult(RunResult.Status.STOPPED, "stopped at step " + globalStep, runDir, globalStep,
                                elapsed(), lastMetrics);
                    }
                    List<BatchMaker.Batch> micro = new ArrayList<>(k);
                    for (int b = s * k; b < Math.min((s + 1) * k, batchesPerEpoch); b++) {
                        micro.add(batches.batch(order, b, stage.batchSize(), config.seed(), stageIndex, epoch, true));
                    }
                    double lr = schedule.lrAt(globalStep - stageStart);
                    TrainingStep.Result r = step.step(micro, (int) globalStep, epoch, stage.clipNorm());
                    globalStep++;
                    if (!Double.isFinite(r.loss())) {
                        publishMetric(MetricNames.TRAIN_LOSS, r.loss(), null);
                        throw new RunFailure(String.format(Locale.ROOT,
                                "the loss became %s at step %d (stage \"%s\", epoch %d, learning rate %.3g): training diverged. "
                                        + "Try a lower learning rate, gradient clipping (\"gradientClipping\": 1.0), "
                                        + "or check the data for extreme or missing values",
                                r.loss(), globalStep, stage.name(), epoch + 1, lr));
                    }
                    epochLossSum += r.loss() * r.examples();
                    epochExamples += r.examples();
                    windowLoss += r.loss() * r.examples();
                    windowExamples += r.examples();
                    windowNorm += r.gradNorm();
                    windowSteps++;
                    if (globalStep % config.logging().everySteps() == 0 || s == stepsPerEpoch - 1) {
                        long now = System.nanoTime();
                        publishMetric(MetricNames.TRAIN_LOSS, windowLoss / windowExamples, null);
                        publishMetric(MetricNames.LR, lr, null);
                        publishMetric(MetricNames.GRAD_NORM, windowNorm / windowSteps, null);
                        publishMetric(MetricNames.THROUGHPUT, windowExamples / Math.max(1e-9, (now - windowStart) / 1e9), null);
                        windowLoss = 0;
                        windowExamples = 0;
                        windowNorm = 0;
                        windowSteps = 0;
                        windowStart = now;
                    }
                }
                double epochSeconds = (System.nanoTime() - epochStart) / 1e9;
                publishMetric(MetricNames.TRAIN_EPOCH_LOSS, epochLossSum / Math.max(1, epochExamples), null);
                publishMetric(MetricNames.EPOCH_TIME, epochSeconds, null);
                boolean lastEpoch = epoch == stage.epochs() - 1;
                int interval = stage.validationInterval();
                if (data.validation() != null && interval > 0 && ((epoch + 1) % interval == 0 || lastEpoch)) {
                    Map<String, Double> metrics = Evaluator.evaluate(net, data.validation(), images, dataType);
                    metrics.forEach((name, value) -> publishMetric(name, value, null));
                    if (!Double.isFinite(metrics.get(MetricNames.VAL_LOSS))) {
                        throw new RunFailure("the validation loss is " + metrics.get(MetricNames.VAL_LOSS) + " after epoch "
                                + (epoch + 1) + " of stage \"" + stage.name() + "\": the model diverged. Try a lower learning rate or gradient clipping");
                    }
                }
                publishLifecycle(LifecycleEvent.Kind.EPOCH_FINISHED, String.format(Locale.ROOT, "epoch %d/%d of \"%s\" in %.1f s",
                        epoch + 1, stage.epochs(), stage.name(), epochSeconds));
            }
            epoch = stage.epochs() - 1;
            publishLifecycle(LifecycleEvent.Kind.STAGE_FINISHED, "stage \"" + stage.name() + "\" finished");
        }
        stageIndex = stages.size() - 1;
        publishLifecycle(LifecycleEvent.Kind.RUN_FINISHED, String.format(Locale.ROOT, "finished %d step(s) in %.1f s",
                globalStep, elapsed()));
        return new RunResult(RunResult.Status.FINISHED, "finished", runDir, globalStep, elapsed(), lastMetrics);
    }

    private DataLoader.Loaded load(Map<DataConfig, DataLoader.Loaded> cache, int stage) {
        StageConfig s = config.stages().get(stage);
        DataConfig data = config.dataFor(s);
        String at = s.data() != null ? "stages[" + stage + "].data" : "data";
        return cache.computeIfAbsent(data, d -> DataLoader.load(config, d, at));
    }

    private double elapsed() {
        return startNanos == 0 ? 0 : (System.nanoTime() - startNanos) / 1e9;
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
