package org.traindeck.engine.devices.energy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.devices.HostProbe;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.TelemetryMonitor;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.TelemetryEvent;
import org.traindeck.engine.events.TelemetryNames;

/**
 * The energy one run's devices use while it trains: each of its GPUs' power.draw from the telemetry's nvidia-smi
 * stream, integrated over time ({@link PowerIntegral}), and the CPU packages' RAPL counters ({@link PackageEnergy}),
 * read every {@code cpuInterval}. Start it when training starts, {@link #stop()} when it ends.
 */
public final class EnergyMeter implements AutoCloseable {

    /** Where the figures come from: nvidia-smi and the host probe (the telemetry's), and the powercap folder. */
    public record Sources(NvidiaSmi smi, HostProbe probe, Path powercapRoot) {}

    private final List<Integer> gpus;
    private final Duration gpuInterval;
    private final Map<Integer, PowerIntegral> integrals = new ConcurrentHashMap<>();
    private final PackageEnergy cpu;
    private final TelemetryMonitor monitor;
    private final ScheduledExecutorService cpuReader;
    private volatile String cpuProblem;
    private EnergyReport report;

    /**
     * @param gpus the run's GPU indices (empty for a CPU run: the GPUs are not read)
     */
    public EnergyMeter(Sources sources, List<Integer> gpus, Duration gpuInterval, Duration cpuInterval) {
        this.gpus = List.copyOf(gpus);
        this.gpuInterval = gpuInterval;
        this.cpu = PackageEnergy.open(sources.powercapRoot());
        if (!gpus.isEmpty()) {
            monitor = new TelemetryMonitor(
                    sources.smi(),
                    sources.probe(),
                    new TelemetryMonitor.Settings(
                            gpuInterval,
                            Duration.ofHours(1),
                            Duration.ofHours(1),
                            TelemetryMonitor.Settings.DEFAULT.firstRestartDelay(),
                            TelemetryMonitor.Settings.DEFAULT.maxRestartDelay()));
            monitor.subscribe(
                    e -> {
                        if (e instanceof TelemetryEvent m
                                && m.kind() == TelemetryEvent.Kind.FIGURE
                                && m.name().endsWith("/" + TelemetryNames.POWER_W)) {
                            Integer index = gpuIndex(m.name());
                            if (index != null && this.gpus.contains(index)) {
                                integrals
                                        .computeIfAbsent(index, i -> new PowerIntegral(maxGap()))
                                        .add(m.wallTimeMillis(), m.value());
                            }
                        }
                    },
                    EventBus.Delivery.LOSSLESS);
            monitor.start();
        } else {
            monitor = null;
        }
        if (cpu.unavailableReason() == null) {
            cpuReader = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "traindeck-energy-rapl");
                t.setDaemon(true);
                return t;
            });
            cpuReader.scheduleAtFixedRate(
                    this::readCpu, cpuInterval.toMillis(), cpuInterval.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            cpuReader = null;
        }
    }

    /** A pause of more than five sample intervals (at least 5 s) is not bridged. */
    private long maxGap() {
        return Math.max(5000, 5 * gpuInterval.toMillis());
    }

    private void readCpu() {
        String problem = cpu.sample();
        if (problem != null) {
            cpuProblem = problem;
        }
    }

    private static Integer gpuIndex(String metric) {
        if (!metric.startsWith(TelemetryNames.GPU_PREFIX)) {
            return null;
        }
        String rest = metric.substring(TelemetryNames.GPU_PREFIX.length());
        int slash = rest.indexOf('/');
        try {
            return slash < 0 ? null : Integer.valueOf(rest.substring(0, slash));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The energy used since the start, all devices together, as far as they can be measured now (the CPU counters
     * read again); NaN when nothing can be. For a stage's share: the difference between its start and its end.
     */
    public double measuredSoFar() {
        double wh = Double.NaN;
        for (int g : gpus) {
            PowerIntegral p = integrals.get(g);
            if (p != null) {
                wh = (Double.isNaN(wh) ? 0 : wh) + p.wattHours();
            }
        }
        if (cpu.unavailableReason() == null) {
            readCpu();
            wh = (Double.isNaN(wh) ? 0 : wh) + cpu.wattHours();
        }
        return wh;
    }

    /** Stops measuring and says what was used; the same report on a second call. */
    public synchronized EnergyReport stop() {
        if (report != null) {
            return report;
        }
        if (cpuReader != null) {
            cpuReader.shutdownNow();
            readCpu();
        }
        if (monitor != null) {
            monitor.close();
        }
        Map<String, Double> wh = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        for (int g : gpus) {
            PowerIntegral p = integrals.get(g);
            if (p == null || p.samples() < 2) {
                notes.add("gpu" + g + ": cannot be measured here (nvidia-smi reported no power.draw)");
                continue;
            }
            wh.put("gpu" + g, p.wattHours());
            if (p.gapMillis() > 0) {
                notes.add(String.format(
                        Locale.ROOT, "gpu%d: %.0f s without power samples left out", g, p.gapMillis() / 1000.0));
            }
        }
        if (cpu.unavailableReason() != null) {
            notes.add("cpu: cannot be measured here: " + cpu.unavailableReason());
        } else {
            wh.put("cpu", cpu.wattHours());
            if (cpuProblem != null) {
                notes.add("cpu: " + cpuProblem);
            }
        }
        report = wh.isEmpty() ? EnergyReport.unavailable(reason(), notes) : new EnergyReport(wh, notes);
        return report;
    }

    /** Why nothing was measured, in a few words: the CPU counters' reason, and the GPUs' when there are any. */
    private String reason() {
        String cpuReason = cpu.unavailableReason() == null ? "RAPL counters read no energy" : cpu.shortReason();
        return PackageEnergy.NO_COUNTERS.equals(cpuReason)
                ? cpuReason + " or GPU power readings"
                : cpuReason + (gpus.isEmpty() ? "" : "; no GPU power readings");
    }

    @Override
    public void close() {
        stop();
    }
}
