package org.traindeck.engine.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Supplier;
import org.traindeck.engine.Version;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DataHome;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.data.numpy.InflateCache;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.HostProbe;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.TelemetryMonitor;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.library.MetricsDigests;
import org.traindeck.engine.parallel.DistributedBackend;
import org.traindeck.engine.profile.StepProfile;
import org.traindeck.engine.queue.RunStarter;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.ProfiledTraining;
import org.traindeck.engine.train.ResumeOptions;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.train.state.StartWork;

/**
 * Everything a front end may ask of the engine: read and check configs, start, resume and stop runs; and the services
 * it fronts, each a small class of its own: {@link #pastRuns()}, {@link #trainedModels()}, {@link #queue()},
 * {@link #sweeps()}, {@link #devices()}. The app sees only this package, its value packages, the events and the config
 * records, so the engine's insides can change without the app noticing; the app's layer test keeps it so. Every
 * method may take time (files, devices, ND4J): call them off the FX thread.
 */
public final class Engine {

    private final DeviceDiscovery discovery;
    private final TelemetryMonitor.Settings telemetry;
    /** Where telemetry comes from: a test's fakes given to the command line, or null for this machine's. */
    private final NvidiaSmi telemetrySmi;

    private final HostProbe telemetryProbe;
    private final FaultPlan faults;

    private final ModelOverviews models;
    private final StartWork work;
    private final PastRuns pastRuns;
    private final TrainedModels trainedModels = new TrainedModels();
    private final RunQueues queue;
    private final Sweeps sweeps;
    private final Devices devices;

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
        // finished runs are read once: the Runs and Sweeps views list the library again after every run
        MetricsDigests digests = new MetricsDigests();
        this.pastRuns = new PastRuns(digests);
        Supplier<RunStarter> starters = () -> RunStarter.inProcess(discovery, faults);
        this.queue = new RunQueues(this::runnable, starters);
        this.sweeps = new Sweeps(this::refusals, discovery, starters, digests);
        this.devices = new Devices(discovery, telemetry, telemetrySmi, telemetryProbe);
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
     * run it opens and starts (a test's counter: a Start does each once).
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
     * Opens a new run through the engine's one front door, {@link TrainingRun#open}: checks the devices, then the model
     * against the data (read and compiled once, for the run to train on) and each stage's batch against the devices'
     * memory, then creates a new run folder and opens its files; {@link RunHandle#start()} trains. A model that does
     * not build or a stage that does not fit is refused before anything is written, with the batch and accumulation
     * that fit.
     *
     * @throws InvalidConfigException every problem that stops the run, a line each
     */
    public RunHandle openRun(RunConfig config) throws IOException {
        return openRun(new ValidationResult(config, List.of()));
    }

    /**
     * The same, for a config read from its text ({@link #load}, {@link #parse}): a refusal also gives the line and
     * column of the node or field it is about.
     */
    public RunHandle openRun(ValidationResult parsed) throws IOException {
        return new RunHandle(TrainingRun.open(
                RunRequest.of(parsed).on(discovery).withFaults(faults).telling(work)));
    }

    /** Untimed steps before a profile's timed ones: the JIT compiles, and DL4J's workspaces learn their sizes. */
    public static final int PROFILE_WARMUP_STEPS = 4;

    /**
     * Where a config's training steps go ({@code traindeck profile}): its model, checked and built as {@link #openRun}
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
        return resume(checkpointOrRunDir, ResumeOptions.NONE);
    }

    /**
     * As {@link #resume(Path)}, with another config, more epochs, other devices or a cluster; a folder another process
     * is writing is refused with a {@link RunBusyException}.
     */
    public RunHandle resume(Path checkpointOrRunDir, ResumeOptions options) throws IOException, CheckpointException {
        try {
            return new RunHandle(TrainingRun.resume(checkpointOrRunDir, options, discovery, faults));
        } catch (RunLock.BusyException e) {
            throw new RunBusyException(e.getMessage(), e);
        }
    }

    /** The runs an output folder holds: listed, opened, compared, their checkpoints. */
    public PastRuns pastRuns() {
        return pastRuns;
    }

    /** What a trained model can do: say what it is, be evaluated, predict, be exported. */
    public TrainedModels trainedModels() {
        return trainedModels;
    }

    /** The queue of an output folder. */
    public RunQueues queue() {
        return queue;
    }

    /** Sweeps: prepared, run, and read back as a board of trials. */
    public Sweeps sweeps() {
        return sweeps;
    }

    /** This machine's devices and their telemetry. */
    public Devices devices() {
        return devices;
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
