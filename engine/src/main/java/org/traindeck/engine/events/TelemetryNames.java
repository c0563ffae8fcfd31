package org.traindeck.engine.events;

import java.util.List;

/**
 * The names of the device figures the telemetry publishes, as {@link TelemetryEvent}s of kind figure: a GPU's
 * are {@code gpu/<index>/<figure>} (device {@code gpu<index>}), the CPU side's {@code cpu/<figure>} (device
 * {@code cpu}). Readers that show one device's figures go by the name's last part, the figure.
 */
public final class TelemetryNames {

    public static final String CPU_DEVICE = "cpu";

    /** Per GPU: memory used and in all, utilisation, temperature and power. */
    public static final String MEMORY_USED_MIB = "memory_used_mib";

    public static final String MEMORY_TOTAL_MIB = "memory_total_mib";
    public static final String UTILIZATION_PCT = "utilization_pct";
    public static final String TEMPERATURE_C = "temperature_c";
    public static final String POWER_W = "power_w";
    public static final List<String> GPU_FIGURES =
            List.of(MEMORY_USED_MIB, MEMORY_TOTAL_MIB, UTILIZATION_PCT, TEMPERATURE_C, POWER_W);

    /**
     * The CPU side: the system's load and this process's, the Java heap used and its maximum, this process's resident
     * memory outside the heap (ND4J's arrays and native libraries), and the system memory used ({@link #MEMORY_USED_MIB}).
     */
    public static final String LOAD_PCT = "load_pct";

    public static final String PROCESS_LOAD_PCT = "process_load_pct";
    public static final String HEAP_USED_MIB = "heap_used_mib";
    public static final String HEAP_MAX_MIB = "heap_max_mib";
    public static final String OFFHEAP_MIB = "offheap_mib";
    public static final List<String> CPU_FIGURES =
            List.of(LOAD_PCT, PROCESS_LOAD_PCT, HEAP_USED_MIB, HEAP_MAX_MIB, OFFHEAP_MIB, MEMORY_USED_MIB);

    /** A GPU's figures are named {@code gpu/<index>/<figure>}, the CPU side's {@code cpu/<figure>}. */
    public static final String GPU_PREFIX = "gpu/";

    public static final String CPU_PREFIX = CPU_DEVICE + "/";

    // only constants, no methods: the app's layer rule counts it among the plain values it may use
    private TelemetryNames() {}
}
