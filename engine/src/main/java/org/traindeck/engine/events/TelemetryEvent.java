package org.traindeck.engine.events;

import java.util.List;

/**
 * Device telemetry that is not a number: a change in the telemetry source's state (nvidia-smi stopped, restarted,
 * missing) or the list of processes holding GPU memory. The numbers themselves are {@link MetricEvent}s.
 */
public record TelemetryEvent(long wallTimeMillis, Kind kind, String message, List<GpuProcess> processes)
        implements EngineEvent {

    public enum Kind {
        STATUS,
        PROCESSES
    }

    public TelemetryEvent {
        processes = List.copyOf(processes);
    }

    public static TelemetryEvent status(String message) {
        return new TelemetryEvent(System.currentTimeMillis(), Kind.STATUS, message, List.of());
    }
}
