package org.traindeck.app;

import java.util.concurrent.CompletableFuture;
import org.traindeck.app.devices.DevicesViewModel;
import org.traindeck.app.run.Dashboard;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.Telemetry;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.events.TelemetryEvent;

/**
 * The window's view of the machine: device discovery once, whether the cluster module is here, and the telemetry
 * samplers, all started on worker threads (OSHI, nvidia-smi and JavaCPP are slow to load) and shown through the
 * devices view and the dashboard. Every method is called on the FX thread.
 */
final class DeviceFeeds {

    private final Engine engine;
    private final TaskExecutor tasks;
    private final DevicesViewModel devices;
    private final Dashboard dashboard;
    private final CompletableFuture<DeviceInventory> inventory = new CompletableFuture<>();
    private Telemetry telemetry;
    private boolean closed;

    DeviceFeeds(Engine engine, TaskExecutor tasks, DevicesViewModel devices, Dashboard dashboard) {
        this.engine = engine;
        this.tasks = tasks;
        this.devices = devices;
        this.dashboard = dashboard;
    }

    /** Completes once the devices are discovered (or discovery failed). */
    CompletableFuture<DeviceInventory> inventory() {
        return inventory;
    }

    void start() {
        if (closed) {
            return;
        }
        tasks.execute(
                engine.devices()::discover,
                inv -> {
                    devices.show(inv);
                    inventory.complete(inv);
                },
                error -> {
                    dashboard.messages().add("device discovery failed: " + error);
                    inventory.completeExceptionally(error);
                });
        tasks.execute(
                Engine::clusterModulePresent,
                devices::showClusterModule,
                error -> dashboard.messages().add("could not tell whether the cluster module is here: " + error));
        tasks.execute(
                this::startTelemetry,
                this::keep,
                error -> dashboard.messages().add("device telemetry failed to start: " + error));
    }

    private void keep(Telemetry started) {
        if (closed) {
            // the window closed while it started; its executor takes no more work
            Thread stop = new Thread(started::close, "traindeck-telemetry-close");
            stop.setDaemon(true);
            stop.start();
        } else {
            telemetry = started;
        }
    }

    /** Off the FX thread: it looks for nvidia-smi on the PATH and starts the samplers. */
    private Telemetry startTelemetry() {
        Telemetry sampling = engine.devices().telemetry();
        sampling.subscribe(e -> {
            if (e instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.FIGURE) {
                devices.accept(t);
                dashboard.offer(t);
            } else if (e instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.STATUS) {
                dashboard.offer(t);
            }
        });
        sampling.start();
        return sampling;
    }

    /** Stops the samplers on a worker thread (closing them waits for their threads). */
    void close() {
        closed = true;
        Telemetry sampling = telemetry;
        if (sampling != null) {
            tasks.execute(sampling::close, () -> {}, e -> {});
        }
    }
}
