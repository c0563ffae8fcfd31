package org.traindeck.app.devices;

import static org.traindeck.engine.events.TelemetryNames.HEAP_USED_MIB;
import static org.traindeck.engine.events.TelemetryNames.LOAD_PCT;
import static org.traindeck.engine.events.TelemetryNames.MEMORY_TOTAL_MIB;
import static org.traindeck.engine.events.TelemetryNames.MEMORY_USED_MIB;
import static org.traindeck.engine.events.TelemetryNames.OFFHEAP_MIB;
import static org.traindeck.engine.events.TelemetryNames.TEMPERATURE_C;
import static org.traindeck.engine.events.TelemetryNames.UTILIZATION_PCT;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javafx.collections.FXCollections;
import javafx.collections.ObservableMap;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.events.TelemetryEvent;
import org.traindeck.engine.events.TelemetryNames;

/**
 * Each device's live figures as text, keyed by device ("cpu", "gpu0", ...): the inventory's at first, then the latest
 * telemetry's, which arrives on any thread and is shown at each {@link #refresh()} on the FX thread.
 */
final class DeviceFigures {

    private final ObservableMap<String, String> figures = FXCollections.observableHashMap();
    /**
     * One wrapper, held here: the wrapper hears the map through a weak listener, so one made per call and held by no
     * one is collected with the first GC, and the view listening to it stops hearing the figures.
     */
    private final ObservableMap<String, String> readOnlyFigures = FXCollections.unmodifiableObservableMap(figures);

    private final Map<String, Map<String, Double>> latest = new ConcurrentHashMap<>();

    ObservableMap<String, String> shown() {
        return readOnlyFigures;
    }

    /** The inventory's figures: a line per GPU and the host's memory (FX thread). */
    void show(DeviceInventory found) {
        for (GpuInfo g : found.gpus()) {
            figures.put(
                    g.id(),
                    String.format(
                            Locale.ROOT,
                            "%s / %s MiB · util %s · %s",
                            or(g.memoryUsedMiB()),
                            or(g.memoryTotalMiB()),
                            g.utilizationPct() == null ? "-" : Math.round(g.utilizationPct()) + "%",
                            g.temperatureC() == null ? "-" : Math.round(g.temperatureC()) + "°C"));
        }
        figures.put(TelemetryNames.CPU_DEVICE, found.host().memoryTotalMiB() + " MiB memory");
    }

    /** A telemetry figure (any thread). */
    void accept(TelemetryEvent t) {
        if (t.kind() == TelemetryEvent.Kind.FIGURE && t.device() != null) {
            latest.computeIfAbsent(t.device(), d -> new ConcurrentHashMap<>()).put(t.figureName(), t.value());
        }
    }

    /** Turns the latest telemetry of the devices shown into their figures (FX thread). */
    void refresh() {
        latest.forEach((device, v) -> {
            if (!figures.containsKey(device)) {
                return;
            }
            figures.put(
                    device,
                    device.equals(TelemetryNames.CPU_DEVICE)
                            ? String.format(
                                    Locale.ROOT,
                                    "load %s · heap %s MiB · off-heap %s MiB · system %s MiB used",
                                    fmt(v.get(LOAD_PCT), "%.0f%%"),
                                    fmt(v.get(HEAP_USED_MIB), "%.0f"),
                                    fmt(v.get(OFFHEAP_MIB), "%.0f"),
                                    fmt(v.get(MEMORY_USED_MIB), "%.0f"))
                            : String.format(
                                    Locale.ROOT,
                                    "%s / %s MiB · util %s · %s",
                                    fmt(v.get(MEMORY_USED_MIB), "%.0f"),
                                    fmt(v.get(MEMORY_TOTAL_MIB), "%.0f"),
                                    fmt(v.get(UTILIZATION_PCT), "%.0f%%"),
                                    fmt(v.get(TEMPERATURE_C), "%.0f°C")));
        });
    }

    private static String or(Object o) {
        return o == null ? "-" : o.toString();
    }

    private static String fmt(Double d, String format) {
        return d == null ? "-" : String.format(Locale.ROOT, format, d);
    }
}
