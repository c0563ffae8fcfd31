package org.traindeck.engine.events;

import org.traindeck.engine.devices.GpuProcess;

import java.util.List;

/**
 * Device telemetry that is not a number: a change in the telemetry source's state (nvidia-smi stopped, restarted,
 * missing) or the list of processes holding GPU memory. The numbers themselves are {@link MetricEvent}s.
 */
public record TelemetryEvent(long wallTimeMillis, Kind kind, String message, List<GpuProcess> processes) implements EngineEvent {

    public enum Kind { STATUS, PROCESSES }

    public TelemetryEvent {
        processes = List.copyOf(processes);
    }

    public static TelemetryEvent status(String message) {
        return new TelemetryEvent(System.currentTimeMillis(), Kind.STATUS, message, List.of());
    }

    @Override
    public String runName() {
        return "telemetry";
    }

    @Override
    public String stage() {
        return "";
    }

    @Override
    public int stageIndex() {
        return 0;
    }

    @Override
    public int epoch() {
        return 0;
    }

    @Override
    public long step() {
        return 0;
    }

    @Override
    public double elapsedSeconds() {
        return 0;
    }
}
