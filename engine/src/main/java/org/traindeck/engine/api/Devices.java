package org.traindeck.engine.api;

import java.time.Duration;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.HostProbe;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.devices.TelemetryMonitor;

/** This machine's devices: what there is to train on, and their telemetry. */
public final class Devices {

    private final DeviceDiscovery discovery;
    private final TelemetryMonitor.Settings telemetry;
    /** Where telemetry comes from: a test's fakes given to the command line, or null for this machine's. */
    private final NvidiaSmi telemetrySmi;

    private final HostProbe telemetryProbe;

    Devices(
            DeviceDiscovery discovery,
            TelemetryMonitor.Settings telemetry,
            NvidiaSmi telemetrySmi,
            HostProbe telemetryProbe) {
        this.discovery = discovery;
        this.telemetry = telemetry;
        this.telemetrySmi = telemetrySmi;
        this.telemetryProbe = telemetryProbe;
    }

    /** This machine's CPU, memory and GPUs (or why there are none). */
    public DeviceInventory discover() {
        return discovery.discover();
    }

    /** A new, not yet started, source of device telemetry. */
    public Telemetry telemetry() {
        return telemetry(telemetry);
    }

    /** The same, sampling GPUs and the host every {@code interval} ({@code traindeck devices --watch}). */
    public Telemetry telemetry(Duration interval) {
        return telemetry(new TelemetryMonitor.Settings(
                interval,
                telemetry.processInterval(),
                interval,
                telemetry.firstRestartDelay(),
                telemetry.maxRestartDelay()));
    }

    private Telemetry telemetry(TelemetryMonitor.Settings settings) {
        return new Telemetry(
                telemetrySmi == null
                        ? new TelemetryMonitor(NvidiaSmi.system(), new OshiHostProbe(), settings)
                        : new TelemetryMonitor(telemetrySmi, telemetryProbe, settings));
    }
}
