package org.traindeck.engine.train;

import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.sinks.RunDirectory;
import org.traindeck.engine.sinks.SinkKind;
import org.traindeck.engine.sinks.SinkKinds;
import org.traindeck.engine.train.state.StartWork;

/**
 * What a run is opened from: its config (with where each field is in its text, for a refusal's line and column),
 * where its devices are found, the failures a test injects, the metric files it opens, its folder (null: a new one
 * under the config's output folder), and who is told of the data read and the model compilation of its start.
 */
public record RunRequest(
        ValidationResult parsed,
        DeviceDiscovery discovery,
        RunFaults faults,
        List<SinkKind> sinkKinds,
        Path dir,
        StartWork work) {

    /** This machine's devices, no faults, every metric file, a new folder. */
    public static RunRequest of(RunConfig config) {
        return of(new ValidationResult(config, List.of()));
    }

    /**
     * A config read from its text: a refusal gives the line and column of the node or field it is about.
     *
     * @throws InvalidConfigException when {@code parsed} has errors
     */
    public static RunRequest of(ValidationResult parsed) {
        ValidationResult located = new ValidationResult(parsed.orThrow(), List.of(), parsed.locations());
        return new RunRequest(located, DeviceDiscovery.system(), RunFaults.NONE, SinkKinds.ALL, null, StartWork.NONE);
    }

    public RunConfig config() {
        return parsed.config();
    }

    public RunRequest on(DeviceDiscovery newDiscovery) {
        return new RunRequest(parsed, newDiscovery, faults, sinkKinds, dir, work);
    }

    public RunRequest withFaults(RunFaults newFaults) {
        return new RunRequest(parsed, discovery, newFaults, sinkKinds, dir, work);
    }

    public RunRequest opening(List<SinkKind> newSinkKinds) {
        return new RunRequest(parsed, discovery, faults, newSinkKinds, dir, work);
    }

    /** In a run folder made for it already by {@link RunDirectory} (a sweep's trial process, whose crash log must go there from its first instant). */
    public RunRequest in(Path newDir) {
        return new RunRequest(parsed, discovery, faults, sinkKinds, newDir, work);
    }

    /** Telling {@code newWork} of the start's data read and model compilation (a test counts them). */
    public RunRequest telling(StartWork newWork) {
        return new RunRequest(parsed, discovery, faults, sinkKinds, dir, newWork);
    }
}
