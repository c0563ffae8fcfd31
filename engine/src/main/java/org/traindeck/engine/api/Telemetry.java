package org.traindeck.engine.api;

import org.traindeck.engine.devices.TelemetryMonitor;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;

/** Device telemetry (GPU and host figures, nvidia-smi's state and GPU processes) until closed. */
public final class Telemetry implements AutoCloseable {

    private final TelemetryMonitor monitor;

    Telemetry(TelemetryMonitor monitor) {
        this.monitor = monitor;
    }

    /** Adds a listener that never holds the sampling up (it misses samples when it falls behind). */
    public void subscribe(EventListener listener) {
        monitor.subscribe(listener, EventBus.Delivery.DROP_WHEN_BEHIND);
    }

    /** Adds a listener that hears every sample, in order (a printer that must not miss a status line). */
    public void subscribeLossless(EventListener listener) {
        monitor.subscribe(listener, EventBus.Delivery.LOSSLESS);
    }

    public void start() {
        monitor.start();
    }

    /** Stops sampling and waits for the sampler threads (a short while): call it off the FX thread. */
    @Override
    public void close() {
        monitor.close();
    }
}
