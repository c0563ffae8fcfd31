package org.traindeck.engine.cli.commands;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.Telemetry;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.events.GpuProcess;
import org.traindeck.engine.events.TelemetryEvent;
import org.traindeck.engine.events.TelemetryNames;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code traindeck devices [--json | --watch [--interval MS] [--samples N]]}. */
@Command(
        name = "devices",
        mixinStandardHelpOptions = true,
        description = "The GPUs and the CPU with live memory, load and temperature; --watch streams them.")
final class DevicesCommand implements Callable<Integer> {

    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");

    private final PrintStream out;
    private final PrintStream err;
    private final Engine engine;

    @Option(names = "--json", description = "as JSON")
    boolean json;

    @Option(names = "--watch", description = "stream telemetry until Ctrl-C (or --samples)")
    boolean watch;

    @Option(
            names = "--interval",
            paramLabel = "MS",
            defaultValue = "1000",
            description = "between samples (at least 100)")
    long interval;

    @Option(names = "--samples", paramLabel = "N", description = "stop after N samples")
    Long samples;

    DevicesCommand(CliContext cli) {
        this.out = cli.out();
        this.err = cli.err();
        this.engine = cli.engine();
    }

    @Override
    public Integer call() {
        if (interval < 1 || samples != null && samples < 1) {
            err.println("traindeck devices: --interval and --samples need positive whole numbers");
            return ExitCodes.INVALID_INPUT;
        }
        if (watch) {
            try {
                watch(Duration.ofMillis(Math.max(100, interval)), samples == null ? 0 : samples);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ExitCodes.OK;
        }
        DeviceInventory inventory = engine.devices().discover();
        if (json) {
            try {
                printJson(inventory);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        } else {
            printTable(inventory);
        }
        return ExitCodes.OK;
    }

    void printTable(DeviceInventory inventory) {
        out.println(String.format(
                Locale.ROOT,
                "%-5s %-40s %21s %6s %6s %9s",
                "ID",
                "NAME",
                "MEMORY USED / TOTAL",
                "UTIL",
                "TEMP",
                "POWER"));
        for (GpuInfo g : inventory.gpus()) {
            out.println(String.format(
                    Locale.ROOT,
                    "%-5s %-40s %21s %6s %6s %9s",
                    g.id(),
                    orDash(g.name()),
                    orDash(g.memoryUsedMiB()) + " / " + orDash(g.memoryTotalMiB()) + " MiB",
                    g.utilizationPct() == null ? "-" : String.format(Locale.ROOT, "%.0f%%", g.utilizationPct()),
                    g.temperatureC() == null ? "-" : String.format(Locale.ROOT, "%.0f°C", g.temperatureC()),
                    g.powerW() == null ? "-" : String.format(Locale.ROOT, "%.1f W", g.powerW())));
        }
        HostInfo h = inventory.host();
        out.println(String.format(
                Locale.ROOT,
                "%-5s %-40s %21s",
                "cpu",
                truncate(h.cpuModel(), 40),
                (h.memoryTotalMiB() - h.memoryAvailableMiB()) + " / " + h.memoryTotalMiB() + " MiB"));
        out.println(String.format(Locale.ROOT, "      %d cores, %d threads", h.physicalCores(), h.logicalCores()));
        if (!inventory.hasGpus()) {
            out.println(inventory.noGpuStatus());
        }
        inventory.notes().forEach(n -> out.println("note: " + n));
    }

    void printJson(DeviceInventory inventory) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        ArrayNode devices = root.putArray("devices");
        for (GpuInfo g : inventory.gpus()) {
            ObjectNode o = devices.addObject();
            o.put("id", g.id());
            o.put("kind", "gpu");
            o.put("index", g.index());
            o.put("uuid", g.uuid());
            o.put("name", g.name());
            o.put("pciBusId", g.pciBusId());
            o.put("memoryTotalMiB", g.memoryTotalMiB());
            o.put("memoryUsedMiB", g.memoryUsedMiB());
            o.put("utilizationPct", g.utilizationPct());
            o.put("temperatureC", g.temperatureC());
            o.put("powerW", g.powerW());
        }
        HostInfo h = inventory.host();
        ObjectNode cpu = devices.addObject();
        cpu.put("id", "cpu");
        cpu.put("kind", "cpu");
        cpu.put("name", h.cpuModel());
        cpu.put("cores", h.physicalCores());
        cpu.put("threads", h.logicalCores());
        cpu.put("memoryTotalMiB", h.memoryTotalMiB());
        cpu.put("memoryAvailableMiB", h.memoryAvailableMiB());
        root.put("gpuReason", inventory.noGpuReason());
        root.put("backend", inventory.cudaBuild() ? "cuda" : "cpu");
        root.put("cudaVisibleDevices", inventory.cudaVisibleDevices());
        ArrayNode visible = root.putArray("visibleGpus");
        inventory.visibleGpus().forEach(g -> visible.add(g.id()));
        ArrayNode notes = root.putArray("notes");
        inventory.notes().forEach(notes::add);
        out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    }

    /** Streams a line per device every interval until interrupted (Ctrl-C) or {@code samples} lines per device. */
    void watch(Duration interval, long samples) throws InterruptedException {
        Map<String, Map<String, Double>> latest = new ConcurrentHashMap<>();
        Map<String, String> idByUuid = new ConcurrentHashMap<>();
        engine.devices().discover().gpus().stream()
                .filter(g -> g.uuid() != null)
                .forEach(g -> idByUuid.put(g.uuid(), g.id()));
        try (Telemetry monitor = engine.devices().telemetry(interval)) {
            monitor.subscribeLossless(e -> {
                if (e instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.FIGURE) {
                    latest.computeIfAbsent(t.device(), d -> new ConcurrentHashMap<>())
                            .put(t.figureName(), t.value());
                } else if (e instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.STATUS) {
                    out.println(LocalTime.now().format(CLOCK) + " " + t.message());
                } else if (e instanceof TelemetryEvent t && !t.processes().isEmpty()) {
                    for (GpuProcess p : t.processes()) {
                        out.println(LocalTime.now().format(CLOCK) + " process " + orDash(p.pid()) + " "
                                + orDash(p.processName()) + " holds " + orDash(p.usedMemoryMiB()) + " MiB on "
                                + (p.gpuUuid() == null ? "-" : idByUuid.getOrDefault(p.gpuUuid(), p.gpuUuid())));
                    }
                }
            });
            monitor.start();
            CountDownLatch never = new CountDownLatch(1);
            for (long n = 0; samples <= 0 || n < samples; n++) {
                never.await(interval.toMillis(), TimeUnit.MILLISECONDS);
                // GPUs in index order, then the CPU
                Map<String, Map<String, Double>> ordered =
                        new TreeMap<>(Comparator.comparing((String d) -> d.equals(TelemetryNames.CPU_DEVICE))
                                .thenComparing(d -> d.length())
                                .thenComparing(d -> d));
                ordered.putAll(latest);
                for (Map.Entry<String, Map<String, Double>> device : ordered.entrySet()) {
                    out.println(LocalTime.now().format(CLOCK) + " " + line(device.getKey(), device.getValue()));
                }
                out.flush();
            }
        }
    }

    private static String line(String device, Map<String, Double> v) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-5s", device));
        if (device.equals(TelemetryNames.CPU_DEVICE)) {
            appendIf(b, v, TelemetryNames.LOAD_PCT, " load %.0f%%");
            appendIf(b, v, TelemetryNames.PROCESS_LOAD_PCT, " (TrainDeck %.0f%%)");
            appendIf(b, v, TelemetryNames.HEAP_USED_MIB, "  heap %.0f");
            appendIf(b, v, TelemetryNames.HEAP_MAX_MIB, "/%.0f MiB");
            appendIf(b, v, TelemetryNames.OFFHEAP_MIB, "  off-heap %.0f MiB");
            appendIf(b, v, TelemetryNames.MEMORY_USED_MIB, "  system memory used %.0f MiB");
        } else {
            appendIf(b, v, TelemetryNames.MEMORY_USED_MIB, " memory %.0f");
            appendIf(b, v, TelemetryNames.MEMORY_TOTAL_MIB, "/%.0f MiB");
            appendIf(b, v, TelemetryNames.UTILIZATION_PCT, "  util %.0f%%");
            appendIf(b, v, TelemetryNames.TEMPERATURE_C, "  %.0f°C");
            appendIf(b, v, TelemetryNames.POWER_W, "  %.1f W");
        }
        return b.toString();
    }

    private static void appendIf(StringBuilder b, Map<String, Double> v, String key, String format) {
        Double d = v.get(key);
        if (d != null) {
            b.append(String.format(Locale.ROOT, format, d));
        }
    }

    private static String orDash(Object o) {
        return o == null ? "-" : o.toString();
    }

    private static String truncate(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }
}
