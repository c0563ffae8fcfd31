package org.traindeck.engine.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.api.sweeps.Sweep;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.library.MetricsDigests;
import org.traindeck.engine.queue.RunStarter;
import org.traindeck.engine.sweep.SweepBoard;
import org.traindeck.engine.sweep.SweepLaunch;

/** Sweeps: a sweep file checked and its trials queued, run, and read back as a board of trials, best first. */
public final class Sweeps {

    private static final Logger LOG = LoggerFactory.getLogger(Sweeps.class);

    /** Every error that stops a run of a valid config before it starts (the engine's refusals). */
    private final Function<ValidationResult, List<ConfigProblem>> refusals;

    private final DeviceDiscovery discovery;
    /** How trials start: in this process, on the engine's devices. */
    private final Supplier<RunStarter> starters;

    private final MetricsDigests digests;

    Sweeps(
            Function<ValidationResult, List<ConfigProblem>> refusals,
            DeviceDiscovery discovery,
            Supplier<RunStarter> starters,
            MetricsDigests digests) {
        this.refusals = refusals;
        this.discovery = discovery;
        this.starters = starters;
        this.digests = digests;
    }

    /** The sweeps run in an output folder (by traindeck sweep), each with its trials' values, status and metric. */
    public List<Sweep> list(Path outputDir) throws IOException {
        return SweepBoard.list(outputDir, digests);
    }

    /**
     * Checks a sweep file and every trial of it (and, as a run's start would, the model and the fit of one trial per
     * distinct model, data, devices and batch), and queues the trials its queue lacks (as {@code traindeck sweep}
     * does); when it cannot run, an {@link InvalidConfigException} says every problem, a line each.
     */
    public PreparedSweep prepare(Path sweepFile) throws IOException, InvalidConfigException {
        return prepare(sweepFile, null, m -> LOG.warn("{}", m));
    }

    /**
     * As {@link #prepare(Path)}, every trial on {@code devices} (null: the base config's), telling {@code warnings}
     * what is doubtful but does not stop the sweep.
     */
    public PreparedSweep prepare(Path sweepFile, DeviceSelection devices, Consumer<String> warnings)
            throws IOException, InvalidConfigException {
        SweepLaunch sweep =
                SweepLaunch.readAndQueue(sweepFile, warnings, c -> refusals.apply(new ValidationResult(c, List.of())));
        List<DeviceSelection> shares = sweep.spec().concurrent() > 1 ? sweep.shares(devices, discovery) : List.of();
        return new PreparedSweep(sweep, sweep.runner(devices, discovery, starters.get()), shares);
    }

    /** How a sweep's trials stand now, as its queue says: the results table (best first) and notes on the others. */
    public SweepReport report(PreparedSweep sweep) throws IOException {
        return SweepReport.of(sweep.launch());
    }

    /**
     * Runs a prepared sweep's queue on a thread of its own, as many trials at once as the sweep says, each on its own
     * share of the base config's devices; preparing and running the file again skips finished trials. Trials run at
     * once train each in a process of its own (their events still reach {@code listener}'s run handles), so a native
     * crash takes down one trial, which is continued once from its latest checkpoint.
     */
    public QueueHandle run(PreparedSweep sweep, QueueListener listener) {
        return QueueHandle.start(sweep.runner(), listener, sweep.launch().hparams());
    }
}
