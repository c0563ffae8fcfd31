package org.traindeck.engine.api;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.Version;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ConfigSchema;
import org.traindeck.engine.config.ConfigWriter;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.DeviceInventory;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.devices.TelemetryMonitor;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.library.HistoryReduction;
import org.traindeck.engine.library.MetricsDigests;
import org.traindeck.engine.library.RunComparison;
import org.traindeck.engine.library.RunLibrary;
import org.traindeck.engine.library.RunSummary;
import org.traindeck.engine.parallel.DistributedBackend;
import org.traindeck.engine.queue.QueueEntry;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.queue.RunStarter;
import org.traindeck.engine.sinks.HistogramsJsonlReader;
import org.traindeck.engine.sinks.MetricsJsonlReader;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.sweep.SweepBoard;
import org.traindeck.engine.sweep.SweepLaunch;
import org.traindeck.engine.train.LiveRun;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.RunResult;
import org.traindeck.engine.train.TrainingRun;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;

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
    private final FaultPlan faults;
    /** Finished runs are read once: the Runs and Sweeps views list the library again after every run. */
    private final MetricsDigests digests = new MetricsDigests();
    private final ModelOverviews models;

    private Engine(DeviceDiscovery discovery, TelemetryMonitor.Settings telemetry, FaultPlan faults) {
        this.discovery = discovery;
        this.telemetry = telemetry;
        this.models = new ModelOverviews(discovery);
        this.faults = faults;
    }

    /** This machine's devices (nvidia-smi and the OS), telemetry at the default rates. */
    public static Engine local() {
        return local(TelemetryMonitor.Settings.DEFAULT);
    }

    /** This machine's devices, telemetry at the given rates. */
    public static Engine local(TelemetryMonitor.Settings telemetry) {
        return new Engine(DeviceDiscovery.system(), telemetry, FaultPlan.NONE);
    }

    /**
     * Devices found through {@code discovery} (the command line's, which tests replace with fakes), and the failures
     * a test injects into the runs and queues it starts ({@link FaultPlan#NONE} otherwise).
     */
    public static Engine using(DeviceDiscovery discovery, FaultPlan faults) {
        return new Engine(discovery, TelemetryMonitor.Settings.DEFAULT, faults);
    }

    /** The devices {@code discovery} finds (a test's, with a small memory), telemetry at the given rates. */
    public static Engine withDevices(DeviceDiscovery discovery, TelemetryMonitor.Settings telemetry) {
        return new Engine(discovery, telemetry, FaultPlan.NONE);
    }

    /** Checks a config's text; relative paths in it are taken from {@code baseDir}. Every problem in one pass. */
    public static ValidationResult parse(String json, Path baseDir) {
        return ConfigParser.parse(json, baseDir);
    }

    /** Reads and checks a config file. */
    public static ValidationResult load(Path file) {
        return ConfigParser.load(file);
    }

    /** The largest config file the engine reads; anything bigger is not a config. */
    public static long maxConfigBytes() {
        return ConfigParser.MAX_CONFIG_BYTES;
    }

    /** The allowed values of an enumerated config field ({@code "model.type"}, {@code "stages[0].precision"}). */
    public static List<String> choices(String path) {
        return ConfigSchema.choices(path);
    }

    /** A config field's documented default as text ("0.001"), or null when it has none. */
    public static String defaultText(String path) {
        return ConfigSchema.defaultText(path);
    }

    /** What a config field is for, its range and its default, for a tooltip; null when the schema says nothing. */
    public static String fieldHint(String path) {
        return ConfigSchema.hint(path);
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
        RunConfig config = parsed.orThrow();
        List<ConfigProblem> refused = models.refusals(parsed);
        if (!refused.isEmpty()) {
            throw new InvalidConfigException(refused);
        }
        return new RunHandle(TrainingRun.prepare(config, discovery, faults));
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
    public RunHandle resume(Path checkpointOrRunDir, TrainingRun.ResumeOptions options) throws IOException, CheckpointException {
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
        Path config = runDir.resolve("config.json");
        RunConfig own = Files.isRegularFile(config) ? load(config).config() : null;
        return new PastRun(runDir, own, history.events(), HistogramsJsonlReader.latest(runDir, HistogramsJsonlReader.KEPT_STEPS));
    }

    /** The runs in an output folder, oldest first, each read from its own folder; empty when there is no such folder. */
    public List<RunSummary> runs(Path outputDir) throws IOException {
        return Files.isDirectory(outputDir) ? RunLibrary.list(outputDir, digests) : List.of();
    }

    /** The config keys (JSON paths) whose values differ between runs, one value per run. */
    public Map<String, List<String>> configDifferences(List<Path> runDirs) throws IOException {
        return RunComparison.configDifferences(runDirs);
    }

    /** The sweeps run in an output folder (by traindeck sweep), each with its trials' values, status and metric. */
    public List<SweepBoard.Sweep> sweeps(Path outputDir) throws IOException {
        return SweepBoard.list(outputDir, digests);
    }

    /** Adds a copy of a config (as it is now) to the queue in its output folder. */
    public QueueEntry enqueue(RunConfig config) throws IOException {
        return RunQueue.add(config.outputPath().resolve(RunQueue.DEFAULT_FILE), config.name(), null,
                ConfigWriter.toJsonWithAbsolutePaths(config));
    }

    /** The queue in an output folder (empty when it has none). */
    public List<QueueEntry> queue(Path outputDir) throws IOException {
        return RunQueue.open(outputDir.resolve(RunQueue.DEFAULT_FILE)).entries();
    }

    /**
     * Runs the queue in an output folder on a thread of its own, one run after another, resuming interrupted runs;
     * only one process runs a queue at a time (the handle completes exceptionally when another does).
     */
    public QueueHandle runQueue(Path outputDir, QueueListener listener) {
        QueueRunner runner = new QueueRunner(outputDir.resolve(RunQueue.DEFAULT_FILE), (DeviceSelection) null,
                RunStarter.inProcess(discovery, faults));
        return inBackground(runner, listener, null);
    }

    /**
     * Checks a sweep file and every trial of it, and queues the trials its queue lacks (as {@code traindeck sweep}
     * does); when it cannot run, an {@link InvalidConfigException} says every problem, a line each.
     */
    public PreparedSweep prepareSweep(Path sweepFile) throws IOException, InvalidConfigException {
        SweepLaunch sweep = SweepLaunch.prepare(sweepFile, m -> LOG.warn("{}", m));
        return new PreparedSweep(sweep, sweep.runner(null, discovery, RunStarter.inProcess(discovery, faults)));
    }

    /**
     * Runs a prepared sweep's queue on a thread of its own, as many trials at once as the sweep says, each on its own
     * share of the base config's devices; preparing and running the file again skips finished trials. Trials run at
     * once train each in a process of its own (their events still reach {@code listener}'s run handles), so a native
     * crash takes down one trial, which is continued once from its latest checkpoint.
     */
    public QueueHandle runSweep(PreparedSweep sweep, QueueListener listener) {
        return inBackground(sweep.runner(), listener, sweep.launch().hparams());
    }

    private static QueueHandle inBackground(QueueRunner runner, QueueListener listener, QueueRunner.Listener also) {
        CompletableFuture<QueueRunner.Outcome> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                done.complete(runner.runAll(new QueueRunner.Listener() {
                    @Override
                    public void starting(QueueEntry entry, LiveRun run, boolean resumed) {
                        if (also != null) {
                            also.starting(entry, run, resumed);
                        }
                        listener.starting(entry, new RunHandle(run), resumed);
                    }

                    @Override
                    public void ended(QueueEntry entry, RunResult result) {
                        if (also != null) {
                            also.ended(entry, result);
                        }
                        listener.ended(entry, result);
                    }
                }));
            } catch (IOException | RuntimeException e) {
                done.completeExceptionally(e);
            }
        }, "traindeck-queue");
        thread.setDaemon(true);
        thread.start();
        return new QueueHandle(runner, done);
    }

    /** This machine's CPU, memory and GPUs (or why there are none). */
    public DeviceInventory discoverDevices() {
        return discovery.discover();
    }

    /** A new, not yet started, source of device telemetry. */
    public Telemetry telemetry() {
        return new Telemetry(new TelemetryMonitor(NvidiaSmi.system(), new OshiHostProbe(), telemetry));
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

    /** The user's TrainDeck data folder. */
    public static Path dataHome() {
        return Nd4jRuntime.dataHome();
    }
}
