package org.traindeck.engine.sweep;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.queue.DeviceShares;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.queue.RunStarter;
import org.traindeck.engine.trials.TrialLaunch;
import org.traindeck.engine.trials.TrialProcesses;

/**
 * A sweep made ready to run, the same way from the command line and from the app: every trial checked before any
 * starts, the trials its queue ({@code sweep-<name>.json} in the output folder) lacks added to it, and the TensorBoard
 * experiment written. Preparing the same file again adds nothing, so running it again skips finished trials and
 * resumes interrupted ones.
 */
public final class SweepLaunch {

    private final SweepSpec spec;
    private final List<SweepTrials.Trial> trials;
    private final Path queueFile;
    private final SweepHParams hparams;

    private SweepLaunch(SweepSpec spec, List<SweepTrials.Trial> trials, Path queueFile, SweepHParams hparams) {
        this.spec = spec;
        this.trials = trials;
        this.queueFile = queueFile;
        this.hparams = hparams;
    }

    /**
     * Reads and checks the sweep file and its trials and queues the new ones. A trial queued earlier with other values
     * means the sweep file or its base changed: nothing is queued and the exception says what to do.
     *
     * @param startChecks the checks a run's start makes (the model, the fit), run before anything is queued on one
     *                    trial of each distinct model, data, devices and batch; their errors refuse the sweep
     */
    public static SweepLaunch prepare(
            Path file, Consumer<String> warn, Function<RunConfig, List<ConfigProblem>> startChecks) throws IOException {
        SweepSpec spec = SweepParser.load(file);
        List<SweepTrials.Trial> trials = SweepTrials.expand(spec);
        TrialStartChecks.refuseWhatCannotStart(trials, startChecks);
        Path queue = trials.get(0).config().outputPath().resolve("sweep-" + spec.name() + ".json");
        enqueue(trials, queue);
        RunQueue.describeSweep(queue, SweepResults.describe(spec));
        SweepHParams hparams = new SweepHParams(spec, trials, warn);
        hparams.writeExperiment(queue.getParent());
        return new SweepLaunch(spec, trials, queue, hparams);
    }

    public SweepSpec spec() {
        return spec;
    }

    public List<SweepTrials.Trial> trials() {
        return trials;
    }

    public Path queueFile() {
        return queueFile;
    }

    /** Hears each trial start and end, to write its TensorBoard HParams record. */
    public QueueRunner.Listener hparams() {
        return hparams;
    }

    /**
     * The devices each trial at once trains on: the sweep's "concurrent" shares of {@code devices} (the base config's
     * when null); one entry, {@code devices} itself, when trials run one at a time.
     */
    public List<DeviceSelection> shares(DeviceSelection devices, DeviceDiscovery discovery) {
        if (spec.concurrent() <= 1) {
            return devices == null ? List.of() : List.of(devices);
        }
        DeviceSelection all = devices != null ? devices : trials.get(0).config().devices();
        return DeviceShares.split(all, spec.concurrent(), discovery);
    }

    /**
     * The runner of the sweep's queue. Trials one at a time train in this JVM, started by {@code inProcess}; several
     * at once each train in a process of their own (this JVM's class path), supervised: a crashed one is retried once
     * from its latest checkpoint, and a native crash in one never takes the others down.
     */
    public QueueRunner runner(DeviceSelection devices, DeviceDiscovery discovery, RunStarter inProcess) {
        return runner(devices, discovery, inProcess, new TrialProcesses(TrialLaunch.sameAsThisJvm()));
    }

    /** As {@link #runner(DeviceSelection, DeviceDiscovery, RunStarter)}, concurrent trials started by {@code processes}. */
    public QueueRunner runner(
            DeviceSelection devices, DeviceDiscovery discovery, RunStarter inProcess, TrialProcesses processes) {
        if (spec.concurrent() > 1) {
            return new QueueRunner(queueFile, shares(devices, discovery), processes);
        }
        return new QueueRunner(queueFile, devices, inProcess);
    }

    private static void enqueue(List<SweepTrials.Trial> trials, Path queue) throws IOException {
        Map<String, QueueEntry> queued = RunQueue.open(queue).entries().stream()
                .collect(Collectors.toMap(QueueEntry::label, Function.identity(), (a, b) -> b));
        List<SweepTrials.Trial> fresh = new ArrayList<>();
        for (SweepTrials.Trial t : trials) {
            QueueEntry e = queued.get(t.label());
            String config = ConfigWriter.toJsonWithAbsolutePaths(t.config());
            if (e == null) {
                fresh.add(t);
            } else if (!sameConfig(e.config(), config)) {
                throw new InvalidConfigException(
                        "",
                        "trial " + t.number() + " (" + t.describe() + ") is not the trial queued as "
                                + e.label() + " in " + queue
                                + ": the sweep file or its base config changed since. Give the sweep another "
                                + "name, or delete " + queue + " to start it over (its runs stay in their folders)");
            }
        }
        for (SweepTrials.Trial t : fresh) {
            RunQueue.add(queue, t.label(), null, ConfigWriter.toJsonWithAbsolutePaths(t.config()));
        }
    }

    private static boolean sameConfig(String a, String b) {
        return ConfigParser.parse(a, Path.of(""))
                .config()
                .equals(ConfigParser.parse(b, Path.of("")).config());
    }
}
