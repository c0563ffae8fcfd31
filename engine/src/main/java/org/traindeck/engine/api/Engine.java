package org.traindeck.engine.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import java.util.function.DoubleConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.Version;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DataHome;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.data.numpy.InflateCache;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.DeviceInventory;
import org.traindeck.engine.devices.HostProbe;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.devices.TelemetryMonitor;
import org.traindeck.engine.devices.energy.EnergyReport;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.library.HistoryReduction;
import org.traindeck.engine.library.MetricsDigests;
import org.traindeck.engine.library.RunComparison;
import org.traindeck.engine.library.RunLibrary;
import org.traindeck.engine.library.RunSummary;
import org.traindeck.engine.outputs.PredictionInputException;
import org.traindeck.engine.parallel.DistributedBackend;
import org.traindeck.engine.profile.StepProfile;
import org.traindeck.engine.queue.QueueEntry;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.queue.RunStarter;
import org.traindeck.engine.sinks.HistogramsJsonlReader;
import org.traindeck.engine.sinks.MetricsJsonlReader;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.sinks.SamplesFileReader;
import org.traindeck.engine.sweep.SweepBoard;
import org.traindeck.engine.sweep.SweepLaunch;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.ProfiledTraining;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.train.batch.PreparedStart;
import org.traindeck.engine.train.state.StartWork;
import org.traindeck.engine.use.Evaluation;
import org.traindeck.engine.use.ModelCard;
import org.traindeck.engine.use.ModelEvaluation;
import org.traindeck.engine.use.ModelExport;
import org.traindeck.engine.use.TrainedModel;
import org.traindeck.engine.use.export.ExportException;
import org.traindeck.engine.use.export.ExportFormat;
import org.traindeck.engine.use.export.WeightsExport;
import org.traindeck.engine.use.predict.CascadePrediction;
import org.traindeck.engine.use.predict.PredictionJob;
import org.traindeck.engine.use.predict.PredictionModel;
import org.traindeck.engine.use.predict.PredictionReport;
import org.traindeck.engine.use.predict.PredictionRequest;

/**
 * Everything a front end may ask of the engine: read and check configs, start, resume and stop runs, read past runs,
 * find devices and watch them. The app sees only this package and the plain values it returns (configs, events,
 * results), so the engine's insides can change without the app noticing; the app's layer test keeps it so.
 * Every method may take time (files, devices, ND4J): call them off the FX thread.
 */
public final class Engine {

    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    private final DeviceDiscovery discovery;
    private final TelemetryMonitor.Settings telemetry;
    /** Where telemetry comes from: a test's fakes given to the command line, or null for this machine's. */
    private final NvidiaSmi telemetrySmi;

    private final HostProbe telemetryProbe;
    private final FaultPlan faults;
    /** Finished runs are read once: the Runs and Sweeps views list the library again after every run. */
    private final MetricsDigests digests = new MetricsDigests();

    private final ModelOverviews models;
    private final StartWork work;

    private Engine(
            DeviceDiscovery discovery,
            TelemetryMonitor.Settings telemetry,
            NvidiaSmi telemetrySmi,
            HostProbe telemetryProbe,
            FaultPlan faults) {
        this(discovery, telemetry, telemetrySmi, telemetryProbe, faults, StartWork.NONE);
    }

    private Engine(
            DeviceDiscovery discovery,
            TelemetryMonitor.Settings telemetry,
            NvidiaSmi telemetrySmi,
            HostProbe telemetryProbe,
            FaultPlan faults,
            StartWork work) {
        this.discovery = discovery;
        this.telemetry = telemetry;
        this.telemetrySmi = telemetrySmi;
        this.telemetryProbe = telemetryProbe;
        this.models = new ModelOverviews(discovery, work);
        this.faults = faults;
        this.work = work;
    }

    /** This machine's devices (nvidia-smi and the OS), telemetry at the default rates. */
    public static Engine local() {
        return local(TelemetryMonitor.Settings.DEFAULT);
    }

    /** This machine's devices, telemetry at the given rates. */
    public static Engine local(TelemetryMonitor.Settings telemetry) {
        // the one start of every TrainDeck process (CLI and app): what a killed one left, and stale members, go
        InflateCache.standard().clean(InflateCache.Limits.DEFAULT);
        return new Engine(DeviceDiscovery.system(), telemetry, null, null, FaultPlan.NONE);
    }

    /**
     * Devices and telemetry from {@code smi} and {@code probe} (a test's fakes), and the failures a test injects into
     * the runs and queues it starts ({@link FaultPlan#NONE} otherwise).
     */
    public static Engine using(NvidiaSmi smi, HostProbe probe, FaultPlan faults) {
        return new Engine(new DeviceDiscovery(smi, probe), TelemetryMonitor.Settings.DEFAULT, smi, probe, faults);
    }

    /** The devices {@code discovery} finds (a test's, with a small memory), telemetry at the given rates. */
    public static Engine withDevices(DeviceDiscovery discovery, TelemetryMonitor.Settings telemetry) {
        return new Engine(discovery, telemetry, null, null, FaultPlan.NONE);
    }

    /**
     * This engine, telling {@code work} each time it compiles a model or reads a dataset: for a summary, a check, or a
     * run it prepares and starts (a test's counter: a Start does each once).
     */
    public Engine telling(StartWork work) {
        return new Engine(discovery, telemetry, telemetrySmi, telemetryProbe, faults, work);
    }

    /**
     * The model of a config's text as a table (node, type, inputs, output shape, parameters), its total, and the fit
     * check of each stage on the config's devices, with each problem on its node; what {@code traindeck validate
     * --summary} prints. The data is read once per data config (and again when a data file changes), so this can
     * follow every edit. It loads ND4J the first time (seconds): never on the FX thread.
     */
    public ModelOverview summarize(String json, Path baseDir) {
        return models.of(json, baseDir);
    }

    /**
     * What {@code traindeck validate} says of a parsed config: its problems and the model's (compiled against the
     * data), the model's table, and whether each stage fits the devices' memory. Loads ND4J as a run would.
     */
    public ConfigCheck check(ValidationResult parsed) {
        return models.check(parsed);
    }

    /**
     * Checks the model against the data and each stage's batch against the devices' memory, then the devices, then
     * creates a new run folder and opens its files; {@link RunHandle#start()} trains. A model that does not build or
     * a stage that does not fit is refused before anything is written, with the batch and accumulation that fit.
     *
     * @throws InvalidConfigException every problem that stops the run, a line each
     */
    public RunHandle prepare(RunConfig config) throws IOException {
        return prepare(new ValidationResult(config, List.of()));
    }

    /**
     * The same, for a config read from its text ({@link #load}, {@link #parse}): a refusal also gives the line and
     * column of the node or field it is about.
     */
    public RunHandle prepare(ValidationResult parsed) throws IOException {
        PreparedStart start = models.prepare(parsed, work);
        try {
            return new RunHandle(TrainingRun.prepare(TrainingRun.Request.of(parsed.config())
                    .on(discovery)
                    .withFaults(faults)
                    .trainingOn(start, work)));
        } catch (IOException | RuntimeException e) {
            start.loaded().close();
            throw e;
        }
    }

    /** Untimed steps before a profile's timed ones: the JIT compiles, and DL4J's workspaces learn their sizes. */
    public static final int PROFILE_WARMUP_STEPS = 4;

    /**
     * Where a config's training steps go ({@code traindeck profile}): its model, checked and built as {@link #prepare}
     * does, trains {@code steps} steps of its first stage on one device after {@link #PROFILE_WARMUP_STEPS} warm-up
     * steps, timed per graph node (forward, backward), optimizer update, data and the rest; with {@code ops}, ND4J's
     * time per native op over as many more steps. Creates no run folder and writes no files. Takes seconds to minutes:
     * never on the FX thread.
     *
     * @throws InvalidConfigException every problem that stops a run of it, a line each
     */
    public StepProfile profile(ValidationResult parsed, int steps, boolean ops) {
        if (steps < 1) {
            throw new IllegalArgumentException("steps must be at least 1, not " + steps);
        }
        return new ProfiledTraining(runnable(parsed)).run(PROFILE_WARMUP_STEPS, steps, ops);
    }

    /**
     * Every error that stops a run of a valid config before it starts: the model's as it compiles against the data,
     * then the stages that do not fit the devices' memory (not checked for a cluster's executors). Loads ND4J.
     */
    public List<ConfigProblem> refusals(ValidationResult parsed) {
        return models.refusals(parsed);
    }

    private RunConfig runnable(ValidationResult parsed) {
        RunConfig config = parsed.orThrow();
        List<ConfigProblem> refused = refusals(parsed);
        if (!refused.isEmpty()) {
            throw new InvalidConfigException(refused);
        }
        return config;
    }

    /**
     * Prepares to continue a run from a checkpoint file or a run folder (its latest valid checkpoint). A damaged or
     * foreign checkpoint is refused with the reason before anything on disk changes.
     */
    public RunHandle resume(Path checkpointOrRunDir) throws IOException, CheckpointException {
        return resume(checkpointOrRunDir, TrainingRun.ResumeOptions.NONE);
    }

    /**
     * As {@link #resume(Path)}, with another config, more epochs, other devices or a cluster; a folder another process
     * is writing is refused with a {@link RunBusyException}.
     */
    public RunHandle resume(Path checkpointOrRunDir, TrainingRun.ResumeOptions options)
            throws IOException, CheckpointException {
        try {
            return new RunHandle(TrainingRun.resume(checkpointOrRunDir, options, discovery, faults));
        } catch (RunLock.BusyException e) {
            throw new RunBusyException(e.getMessage(), e);
        }
    }

    /**
     * A past (or running) run as its folder holds it: its own config and its metrics.jsonl, read line by line and
     * reduced to what a chart shows (each series' lowest and highest point per step range, every spike kept), so a
     * file of any size opens in bounded memory; and the last histograms of each layer from histograms.jsonl.
     */
    public PastRun open(Path runDir) throws IOException {
        HistoryReduction history = new HistoryReduction();
        MetricsJsonlReader.forEach(runDir, history::add);
        Path config = RunFolder.of(runDir).config();
        RunConfig own = Files.isRegularFile(config) ? Configs.load(config).config() : null;
        return new PastRun(
                runDir,
                own,
                history.events(),
                HistogramsJsonlReader.latest(runDir, HistogramsJsonlReader.KEPT_STEPS),
                SamplesFileReader.read(runDir, own == null ? String.valueOf(runDir.getFileName()) : own.name()));
    }

    /** The runs in an output folder, oldest first, each read from its own folder; empty when there is no such folder. */
    public List<RunSummary> runs(Path outputDir) throws IOException {
        return Files.isDirectory(outputDir) ? RunLibrary.list(outputDir, digests) : List.of();
    }

    /**
     * The energy a run's devices used, as its folder records it: by device and by stage (with Wh per 1,000 samples),
     * or why it could not be measured ("no RAPL counters or GPU power readings").
     */
    public EnergyReport energy(Path runDir) throws IOException {
        return RunLibrary.energy(runDir, digests);
    }

    /** Final and best metrics of runs side by side, and the config keys whose values differ. */
    public RunComparison.Result compare(List<Path> runDirs) throws IOException {
        return RunComparison.compare(runDirs);
    }

    /** Every checkpoint in a run folder, oldest first, each valid or with the reason it cannot be resumed. */
    public List<Checkpoint.Listed> checkpoints(Path runDir) throws IOException {
        return new CheckpointStore(runDir).list();
    }

    /** The checkpoint a resume of the run would continue from: its newest valid regular one; empty when none is. */
    public Optional<Path> latestCheckpoint(Path runDir) throws IOException {
        return new CheckpointStore(runDir).latestValid().map(Checkpoint.Listed::file);
    }

    /**
     * What a trained model is (task, input shapes, classes or vocabulary, which checkpoint): a run folder's best
     * checkpoint (else its newest valid one) or a checkpoint file, with its weight average when {@code ema}.
     */
    public ModelCard trainedModel(Path runOrCheckpoint, boolean ema) throws CheckpointException {
        return TrainedModel.open(runOrCheckpoint, ema).card();
    }

    /**
     * Evaluates a trained model (a run folder's best checkpoint, else its newest valid one, or a checkpoint file) on
     * {@code data} (a run config with data.test, or a source as a JSON file or text; null for the run's own data.test,
     * else its validation data), and writes the figures to the run folder's evaluation.json (evaluation-ema.json
     * for the weight average).
     *
     * @param progress told the fraction done after each batch, on the calling thread
     * @throws InvalidConfigException located, when the data cannot be used
     */
    public Evaluation evaluate(Path runOrCheckpoint, String data, boolean ema, DoubleConsumer progress)
            throws CheckpointException, IOException {
        return ModelEvaluation.run(runOrCheckpoint, data, ema, progress);
    }

    /**
     * {@code traindeck predict}: a trained model's predictions on inputs, written whole or not at all, or a text
     * model's continuation of a prompt (each character handed to {@code eachCharacter} as it is drawn).
     *
     * @throws PredictionInputException an input or output the model cannot take, naming it and what is expected
     */
    public PredictionReport predict(PredictionRequest request, Consumer<String> eachCharacter)
            throws CheckpointException, IOException {
        RunConfig cascade = CascadePrediction.cascadeOf(request.model());
        if (cascade != null && request.prompt() == null) {
            return CascadePrediction.run(cascade, request);
        }
        return PredictionJob.run(
                PredictionModel.of(TrainedModel.open(request.model(), request.ema())), request, eachCharacter);
    }

    /**
     * Writes a trained model's weights (its weight average when {@code ema}) as safetensors or npz under PyTorch's names
     * and layouts, with the graph as JSON (docs/export.md). Nothing is written half-way; an existing file is kept unless
     * {@code force}.
     *
     * @throws ExportException for a node export cannot name, a file name that does not fit the format, or a failed write
     */
    public WeightsExport.Written export(Path runOrCheckpoint, ExportFormat format, boolean ema, Path out, boolean force)
            throws CheckpointException {
        return ModelExport.write(TrainedModel.open(runOrCheckpoint, ema), format, out, force);
    }

    /** The config keys (JSON paths) whose values differ between runs, one value per run. */
    public Map<String, List<String>> configDifferences(List<Path> runDirs) throws IOException {
        return RunComparison.configDifferences(runDirs);
    }

    /** The sweeps run in an output folder (by traindeck sweep), each with its trials' values, status and metric. */
    public List<SweepBoard.Sweep> sweeps(Path outputDir) throws IOException {
        return SweepBoard.list(outputDir, digests);
    }

    /**
     * Adds a copy of a config (as it is now) to the queue in its output folder, after the checks a run's start makes:
     * a model that does not build or a stage that does not fit is refused now, not when the queue reaches it.
     *
     * @throws InvalidConfigException every problem that would stop the run, a line each
     */
    public QueueEntry enqueue(RunConfig config) throws IOException {
        return enqueue(new ValidationResult(config, List.of()), null);
    }

    /** The same for a config read from a file ({@code traindeck queue add}): refusals give their line, the entry its source. */
    public QueueEntry enqueue(ValidationResult parsed, Path source) throws IOException {
        RunConfig config = runnable(parsed);
        return RunQueue.add(
                queueFile(config.outputPath()),
                config.name(),
                source == null ? null : source.toAbsolutePath().toString(),
                ConfigWriter.toJsonWithAbsolutePaths(config));
    }

    /** The file that holds the queue of an output folder. */
    public static Path queueFile(Path outputDir) {
        return outputDir.resolve(RunQueue.DEFAULT_FILE);
    }

    /** The queue in an output folder (empty when it has none). */
    public List<QueueEntry> queue(Path outputDir) throws IOException {
        return RunQueue.open(queueFile(outputDir)).entries();
    }

    /** Takes entry {@code id} out of an output folder's queue (refused while it runs); its run folder, if any, stays. */
    public QueueEntry removeFromQueue(Path outputDir, int id) throws IOException {
        return RunQueue.remove(queueFile(outputDir), id);
    }

    /** Moves waiting entry {@code id} of an output folder's queue to {@code position} (0 = first, clamped to the ends). */
    public void moveInQueue(Path outputDir, int id, int position) throws IOException {
        RunQueue.move(queueFile(outputDir), id, position);
    }

    /**
     * Runs the queue in an output folder on a thread of its own, one run after another, resuming interrupted runs;
     * only one process runs a queue at a time (the handle completes exceptionally when another does).
     */
    public QueueHandle runQueue(Path outputDir, QueueListener listener) {
        return runQueue(outputDir, null, listener);
    }

    /** As {@link #runQueue(Path, QueueListener)}, every run on {@code devices} (null: each run's own). */
    public QueueHandle runQueue(Path outputDir, DeviceSelection devices, QueueListener listener) {
        return QueueHandle.start(
                new QueueRunner(queueFile(outputDir), devices, RunStarter.inProcess(discovery, faults)),
                listener,
                null);
    }

    /**
     * Checks a sweep file and every trial of it (and, as a run's start would, the model and the fit of one trial per
     * distinct model, data, devices and batch), and queues the trials its queue lacks (as {@code traindeck sweep}
     * does); when it cannot run, an {@link InvalidConfigException} says every problem, a line each.
     */
    public PreparedSweep prepareSweep(Path sweepFile) throws IOException, InvalidConfigException {
        return prepareSweep(sweepFile, null, m -> LOG.warn("{}", m));
    }

    /**
     * As {@link #prepareSweep(Path)}, every trial on {@code devices} (null: the base config's), telling {@code warnings}
     * what is doubtful but does not stop the sweep.
     */
    public PreparedSweep prepareSweep(Path sweepFile, DeviceSelection devices, Consumer<String> warnings)
            throws IOException, InvalidConfigException {
        SweepLaunch sweep = SweepLaunch.prepare(sweepFile, warnings, c -> refusals(new ValidationResult(c, List.of())));
        List<DeviceSelection> shares = sweep.spec().concurrent() > 1 ? sweep.shares(devices, discovery) : List.of();
        return new PreparedSweep(
                sweep, sweep.runner(devices, discovery, RunStarter.inProcess(discovery, faults)), shares);
    }

    /** How a sweep's trials stand now, as its queue says: the results table (best first) and notes on the others. */
    public SweepReport sweepReport(PreparedSweep sweep) throws IOException {
        return SweepReport.of(sweep.launch());
    }

    /**
     * Runs a prepared sweep's queue on a thread of its own, as many trials at once as the sweep says, each on its own
     * share of the base config's devices; preparing and running the file again skips finished trials. Trials run at
     * once train each in a process of its own (their events still reach {@code listener}'s run handles), so a native
     * crash takes down one trial, which is continued once from its latest checkpoint.
     */
    public QueueHandle runSweep(PreparedSweep sweep, QueueListener listener) {
        return QueueHandle.start(sweep.runner(), listener, sweep.launch().hparams());
    }

    /** This machine's CPU, memory and GPUs (or why there are none). */
    public DeviceInventory discoverDevices() {
        return discovery.discover();
    }

    /** A new, not yet started, source of device telemetry. */
    public Telemetry telemetry() {
        return telemetry(telemetry);
    }

    /** The same, sampling GPUs and the host every {@code interval} ({@code traindeck devices --watch}). */
    public Telemetry telemetry(Duration interval) {
        return telemetry(new TelemetryMonitor.Settings(
                interval,
                telemetry.processInterval(),
                interval,
                telemetry.firstRestartDelay(),
                telemetry.maxRestartDelay()));
    }

    private Telemetry telemetry(TelemetryMonitor.Settings settings) {
        return new Telemetry(
                telemetrySmi == null
                        ? new TelemetryMonitor(NvidiaSmi.system(), new OshiHostProbe(), settings)
                        : new TelemetryMonitor(telemetrySmi, telemetryProbe, settings));
    }

    /**
     * Whether this process can train on a cluster: the cluster module, which brings the backend ("spark://…"), is
     * optional and not in the desktop package. Reads the class path: not on the FX thread.
     */
    public static boolean clusterModulePresent() {
        return ServiceLoader.load(DistributedBackend.class).findFirst().isPresent();
    }

    /** TrainDeck's version, as the CLI's --version prints it. */
    public static String version() {
        return Version.get();
    }

    /** The run folder a resume target names: the folder, its checkpoints/ folder, or a checkpoint file in it. */
    public static Path runFolderOf(Path target) {
        Path t = target.toAbsolutePath().normalize();
        if (!Files.isDirectory(t)) {
            t = t.getParent();
        }
        return RunFolder.isCheckpointsFolder(t) ? t.getParent() : t;
    }

    /** The user's TrainDeck data folder. */
    public static Path dataHome() {
        return Nd4jRuntime.dataHome();
    }

    /** The data folder the environment {@code env} names (XDG_DATA_HOME, else HOME). */
    public static Path dataHome(Map<String, String> env) {
        return DataHome.folder(env);
    }
}
