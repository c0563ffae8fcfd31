package org.traindeck.engine;

import java.io.IOException;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * Trains a run in the background and has it stop right after {@code step}, as a user's Stop would. The stop is
 * part of the run's fault plan, so it lands on that exact step whatever the machine's load (a listener sees events
 * asynchronously, by which time a fast run may be many steps further).
 */
public final class TestRuns {

    private TestRuns() {}

    public static RunResult stopAfterStep(RunConfig config, long step, EventListener alsoListening)
            throws IOException, InterruptedException {
        TrainingRun run = TrainingRun.open(
                RunRequest.of(config).on(DeviceDiscovery.system()).withFaults(FaultPlan.NONE.stoppingAfterStep(step)));
        run.subscribe(alsoListening, EventBus.Delivery.LOSSLESS);
        run.start();
        return run.await();
    }

    public static RunResult stopAfterStep(RunConfig config, long step) throws IOException, InterruptedException {
        return stopAfterStep(config, step, e -> {});
    }
}
