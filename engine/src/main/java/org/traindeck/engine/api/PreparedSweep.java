package org.traindeck.engine.api;

import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.sweep.SweepLaunch;

/**
 * A sweep checked and queued, with its runner ready ({@link Sweeps#prepare}), so that starting it
 * ({@link Sweeps#run}) touches no file: its name, how many trials it has, how many run at once, where its queue is.
 */
public final class PreparedSweep {

    private final SweepLaunch launch;
    private final QueueRunner runner;
    private final List<DeviceSelection> shares;

    PreparedSweep(SweepLaunch launch, QueueRunner runner, List<DeviceSelection> shares) {
        this.launch = launch;
        this.runner = runner;
        this.shares = List.copyOf(shares);
    }

    public String name() {
        return launch.spec().name();
    }

    public int trials() {
        return launch.trials().size();
    }

    /** Trials trained at once. */
    public int concurrent() {
        return launch.spec().concurrent();
    }

    /** The devices each of the trials trained at once gets; empty when they train one after another. */
    public List<DeviceSelection> shares() {
        return shares;
    }

    public Path queueFile() {
        return launch.queueFile();
    }

    /** The output folder its trials' runs go to. */
    public Path outputDir() {
        return launch.queueFile().getParent();
    }

    SweepLaunch launch() {
        return launch;
    }

    QueueRunner runner() {
        return runner;
    }
}
