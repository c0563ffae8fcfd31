package org.traindeck.engine.queue;

import java.io.IOException;
import java.nio.file.Path;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.train.LiveRun;
import org.traindeck.engine.train.ResumeOptions;
import org.traindeck.engine.train.RunFaults;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** Where a queue's runs train: on threads of this JVM, or each in a process of its own (a concurrent sweep's trials). */
public interface RunStarter {

    /** A new run of {@code config}, in a new folder, opened (checked, its files created) but not started. */
    LiveRun open(RunConfig config) throws IOException;

    /**
     * The run in {@code runDir} continued from its latest checkpoint ({@code devices}: instead of its own, or null);
     * a {@link CheckpointException} when it has none to continue from.
     */
    LiveRun resume(Path runDir, DeviceSelection devices) throws IOException, CheckpointException;

    /** Runs on threads of this JVM, with a test's faults injected into every run ({@link RunFaults#NONE} otherwise). */
    static RunStarter inProcess(DeviceDiscovery discovery, RunFaults faults) {
        return new RunStarter() {
            @Override
            public LiveRun open(RunConfig config) throws IOException {
                return TrainingRun.open(RunRequest.of(config).on(discovery).withFaults(faults));
            }

            @Override
            public LiveRun resume(Path runDir, DeviceSelection devices) throws IOException, CheckpointException {
                return TrainingRun.resume(runDir, new ResumeOptions(null, null, devices), discovery, faults);
            }
        };
    }
}
