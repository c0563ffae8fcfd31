package org.traindeck.engine.events;

import java.util.List;

/**
 * Device telemetry, which belongs to no run: a device figure ({@link Kind#FIGURE}: {@code name}, {@code device} and
 * {@code value}, named as {@link TelemetryNames} says), a change in the telemetry source's state (nvidia-smi stopped,
 * restarted, missing: {@code message}), or the list of processes holding GPU memory ({@code processes}).
 */
public record TelemetryEvent(
        long wallTimeMillis,
        Kind kind,
        String message,
        List<GpuProcess> processes,
        String name,
        String device,
        double value)
        implements EngineEvent {

    public enum Kind {
        /** One device figure; a listener that falls behind may miss some, as it misses a run's metrics. */
        FIGURE,
        STATUS,
        PROCESSES
    }

    public TelemetryEvent {
        processes = List.copyOf(processes);
    }

    /** A status or process list: no figure. */
    public TelemetryEvent(long wallTimeMillis, Kind kind, String message, List<GpuProcess> processes) {
        this(wallTimeMillis, kind, message, processes, null, null, Double.NaN);
    }

    public static TelemetryEvent status(String message) {
        return new TelemetryEvent(System.currentTimeMillis(), Kind.STATUS, message, List.of());
    }

    /** A device figure sampled now: {@code gpu/0/memory_used_mib} of {@code gpu0}, {@code cpu/heap_used_mib} of cpu. */
    public static TelemetryEvent figure(String name, String device, double value) {
        return figure(System.currentTimeMillis(), name, device, value);
    }

    public static TelemetryEvent figure(long wallTimeMillis, String name, String device, double value) {
        return new TelemetryEvent(wallTimeMillis, Kind.FIGURE, "", List.of(), name, device, value);
    }

    /** The figure's last part, the same for every device: {@code memory_used_mib}. */
    public String figureName() {
        return name == null ? null : name.substring(name.lastIndexOf('/') + 1);
    }
}
