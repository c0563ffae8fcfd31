package org.traindeck.engine.devices;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.GpuProcess;
import org.traindeck.engine.events.TelemetryEvent;
import org.traindeck.engine.events.TelemetryNames;

/**
 * Live device figures as telemetry events: one long-running {@code nvidia-smi -lms} process streams every GPU's memory,
 * utilisation, temperature and power (restarted with back-off when it dies); the processes holding GPU memory are
 * polled more slowly; the CPU side (system load, this process's heap and off-heap memory, where ND4J's arrays live)
 * is sampled in-process.
 *
 * <p>The figures and their names: {@link TelemetryNames}. A value the driver does not report is not published.
 */
public final class TelemetryMonitor implements AutoCloseable {

    /** How often each part samples, and how the nvidia-smi restarts back off. */
    public record Settings(
            Duration gpuInterval,
            Duration processInterval,
            Duration cpuInterval,
            Duration firstRestartDelay,
            Duration maxRestartDelay) {
        public static final Settings DEFAULT = new Settings(
                Duration.ofSeconds(1),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                Duration.ofSeconds(30));
    }

    private final NvidiaSmi smi;
    private final HostProbe probe;
    private final Settings settings;
    private final EventBus bus = new EventBus();
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "traindeck-telemetry");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean running;
    private volatile Process stream;
    private Thread streamThread;
    /** Whether the running stream has said so (the stream thread's own). */
    private boolean announcedRunning;

    private volatile boolean processErrorReported;

    public TelemetryMonitor(NvidiaSmi smi, HostProbe probe, Settings settings) {
        this.smi = smi;
        this.probe = probe;
        this.settings = settings;
    }

    public EventBus.Subscription subscribe(EventListener listener, EventBus.Delivery delivery) {
        return bus.subscribe(listener, delivery);
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        scheduler.scheduleAtFixedRate(this::sampleCpu, 0, settings.cpuInterval().toMillis(), TimeUnit.MILLISECONDS);
        if (smi.locate().isEmpty()) {
            bus.publish(TelemetryEvent.status("no GPU telemetry: nvidia-smi was not found on PATH"));
            return;
        }
        scheduler.scheduleAtFixedRate(
                this::sampleProcesses, 0, settings.processInterval().toMillis(), TimeUnit.MILLISECONDS);
        streamThread = new Thread(this::streamGpus, "traindeck-telemetry-nvidia-smi");
        streamThread.setDaemon(true);
        streamThread.start();
    }

    private void streamGpus() {
        long delay = settings.firstRestartDelay().toMillis();
        announcedRunning = false;
        while (running) {
            long started = System.nanoTime();
            String problem;
            try {
                problem = streamOnce();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (!running) {
                return;
            }
            if (System.nanoTime() - started > TimeUnit.SECONDS.toNanos(60)) {
                delay = settings.firstRestartDelay().toMillis();
            }
            bus.publish(TelemetryEvent.status(problem + "; restarting in " + formatDelay(delay)));
            announcedRunning = false;
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            delay = Math.min(delay * 2, settings.maxRestartDelay().toMillis());
        }
    }

    /** Runs one nvidia-smi stream until it ends; returns why it ended (null when the monitor is stopping). */
    private String streamOnce() throws InterruptedException {
        try {
            Process p = smi.startStream(settings.gpuInterval().toMillis());
            stream = p;
            StringBuilder lastError = new StringBuilder();
            Thread errors = drain(p, lastError);
            publishRows(p);
            if (!running) {
                return null;
            }
            int exit = p.waitFor();
            errors.join(1000);
            String said;
            synchronized (lastError) {
                said = lastError.toString();
            }
            return "nvidia-smi stopped (exit code " + exit + (said.isEmpty() ? "" : ": " + said) + ")";
        } catch (NvidiaSmiException | IOException e) {
            return e.getMessage();
        }
    }

    /** Publishes every GPU row the stream prints, after the header line that names its columns. */
    private void publishRows(Process p) throws IOException {
        NvidiaSmiParser.Header header = null;
        try (BoundedLineReader in =
                new BoundedLineReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while (running && (line = in.readLine()) != null) {
                String t = line.strip();
                if (t.isEmpty()) {
                    continue;
                }
                if (NvidiaSmiParser.isHeader(t, NvidiaSmiParser.GPU_FIELDS)) {
                    header = new NvidiaSmiParser.Header(t);
                    continue;
                }
                GpuInfo row = header == null ? null : NvidiaSmiParser.parseGpuRow(header, t);
                if (row != null) {
                    if (!announcedRunning) {
                        bus.publish(TelemetryEvent.status("GPU telemetry running (nvidia-smi every "
                                + settings.gpuInterval().toMillis() + " ms)"));
                        announcedRunning = true;
                    }
                    publishGpu(row);
                }
            }
        } catch (IOException e) {
            NvidiaSmi.killTree(p);
            throw e;
        }
    }

    private static String formatDelay(long millis) {
        return millis < 1000 ? millis + " ms" : (millis / 1000.0) + " s";
    }

    private static Thread drain(Process p, StringBuilder lastLine) {
        Thread t = new Thread(
                () -> {
                    try (BoundedLineReader err =
                            new BoundedLineReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = err.readLine()) != null) {
                            if (!line.isBlank()) {
                                synchronized (lastLine) {
                                    lastLine.setLength(0);
                                    lastLine.append(line.strip());
                                }
                            }
                        }
                    } catch (IOException e) {
                        // the process is gone; what it said so far is kept
                    }
                },
                "traindeck-telemetry-stderr");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void publishGpu(GpuInfo g) {
        int i = g.index();
        publish(gpuName(i, TelemetryNames.MEMORY_USED_MIB), g.memoryUsedMiB(), g.id());
        publish(gpuName(i, TelemetryNames.MEMORY_TOTAL_MIB), g.memoryTotalMiB(), g.id());
        publish(gpuName(i, TelemetryNames.UTILIZATION_PCT), g.utilizationPct(), g.id());
        publish(gpuName(i, TelemetryNames.TEMPERATURE_C), g.temperatureC(), g.id());
        publish(gpuName(i, TelemetryNames.POWER_W), g.powerW(), g.id());
    }

    private void sampleProcesses() {
        try {
            List<GpuProcess> processes = smi.queryComputeApps();
            bus.publish(new TelemetryEvent(System.currentTimeMillis(), TelemetryEvent.Kind.PROCESSES, "", processes));
            processErrorReported = false;
        } catch (NvidiaSmiException e) {
            if (!processErrorReported) {
                bus.publish(TelemetryEvent.status("GPU process list unavailable: " + e.getMessage()));
                processErrorReported = true;
            }
        } catch (RuntimeException e) {
            bus.publish(TelemetryEvent.status("GPU process list failed: " + e));
        }
    }

    private void sampleCpu() {
        try {
            double load = probe.cpuLoad();
            if (load >= 0) {
                publishCpu(TelemetryNames.LOAD_PCT, load * 100);
            }
            if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
                double processLoad = os.getProcessCpuLoad();
                if (processLoad >= 0) {
                    publishCpu(TelemetryNames.PROCESS_LOAD_PCT, processLoad * 100);
                }
            }
            Runtime rt = Runtime.getRuntime();
            publishCpu(TelemetryNames.HEAP_USED_MIB, (double) ((rt.totalMemory() - rt.freeMemory()) >> 20));
            publishCpu(TelemetryNames.HEAP_MAX_MIB, (double) (rt.maxMemory() >> 20));
            // The process's resident memory outside the Java heap: ND4J's arrays and workspaces, BLAS, native libraries
            // (JavaCPP's own counter misses most of what the CPU backend allocates).
            long resident = ResidentMemory.bytes();
            if (resident > 0) {
                publishCpu(TelemetryNames.OFFHEAP_MIB, (double) (Math.max(0, resident - rt.totalMemory()) >> 20));
            }
            HostInfo host = probe.host();
            publishCpu(TelemetryNames.MEMORY_USED_MIB, (double) (host.memoryTotalMiB() - host.memoryAvailableMiB()));
        } catch (RuntimeException e) {
            bus.publish(TelemetryEvent.status("CPU telemetry failed: " + e));
        }
    }

    private void publishCpu(String figure, Number value) {
        publish(TelemetryNames.CPU_PREFIX + figure, value, TelemetryNames.CPU_DEVICE);
    }

    static String gpuName(int index, String figure) {
        return TelemetryNames.GPU_PREFIX + index + "/" + figure;
    }

    private void publish(String name, Number value, String device) {
        if (value != null) {
            bus.publish(TelemetryEvent.figure(name, device, value.doubleValue()));
        }
    }

    @Override
    public synchronized void close() {
        running = false;
        scheduler.shutdownNow();
        Process p = stream;
        if (p != null) {
            p.destroy();
            try {
                if (!p.waitFor(2, TimeUnit.SECONDS)) {
                    NvidiaSmi.killTree(p);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (streamThread != null) {
            streamThread.interrupt();
        }
        bus.close(5000);
    }
}
