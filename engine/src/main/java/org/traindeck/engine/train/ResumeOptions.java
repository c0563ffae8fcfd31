package org.traindeck.engine.train;

import java.nio.file.Path;
import org.traindeck.engine.config.DeviceSelection;

/**
 * What to change when resuming: a new config (checked for safety), the current stage's epochs, the devices (which
 * also moves a cluster run onto this machine) or the cluster ("spark://HOST:7077"); and whether a checkpoint that
 * another run of the same name and model wrote may be continued in this run's folder (refused otherwise).
 */
public record ResumeOptions(
        Path config, Integer epochs, DeviceSelection devices, String cluster, boolean fromAnotherRun) {
    public static final ResumeOptions NONE = new ResumeOptions(null, null, null);

    public ResumeOptions(Path config, Integer epochs) {
        this(config, epochs, null);
    }

    /** Devices given without a cluster: a cluster run continues on this machine. */
    public ResumeOptions(Path config, Integer epochs, DeviceSelection devices) {
        this(config, epochs, devices, null);
    }

    public ResumeOptions(Path config, Integer epochs, DeviceSelection devices, String cluster) {
        this(config, epochs, devices, cluster, false);
    }
}
