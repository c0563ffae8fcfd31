package org.traindeck.engine.devices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.GpuProcess;
import org.traindeck.engine.events.TelemetryEvent;

/** The monitor against a fake nvidia-smi first on PATH: real processes, real restarts. */
class TelemetryMonitorTest {

    private static final TelemetryMonitor.Settings FAST = new TelemetryMonitor.Settings(
            Duration.ofMillis(50),
            Duration.ofMillis(200),
            Duration.ofMillis(100),
            Duration.ofMillis(100),
            Duration.ofMillis(400));

    /** Waits until the events say it is done; the bound only guards against a hang (it used to give up silently after 20 s). */
    private static void waitFor(List<EngineEvent> events, Predicate<List<EngineEvent>> done) {
        await().atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    synchronized (events) {
                        return done.test(events);
                    }
                });
    }

    private static List<TelemetryEvent> metrics(List<EngineEvent> events, String name) {
        synchronized (events) {
            return events.stream()
                    .filter(e -> e instanceof TelemetryEvent t
                            && t.kind() == TelemetryEvent.Kind.FIGURE
                            && t.name().equals(name))
                    .map(e -> (TelemetryEvent) e)
                    .toList();
        }
    }

    private static List<String> statuses(List<EngineEvent> events) {
        synchronized (events) {
            return events.stream()
                    .filter(e -> e instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.STATUS)
                    .map(e -> ((TelemetryEvent) e).message())
                    .toList();
        }
    }

    @Test
    void streamsGpuFiguresAndRestartsNvidiaSmiWhenItDies(@TempDir Path dir) throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        List<EngineEvent> events = Collections.synchronizedList(new ArrayList<>());
        try (TelemetryMonitor monitor = new TelemetryMonitor(fake.runner(), FakeNvidiaSmi.host(List.of()), FAST)) {
            monitor.subscribe(events::add, EventBus.Delivery.LOSSLESS);
            monitor.start();
            waitFor(
                    events,
                    e -> statuses(events).stream()
                                            .filter(s -> s.contains("restarting"))
                                            .count()
                                    >= 2
                            && metrics(events, "gpu/1/memory_used_mib").size() >= 6);
        }

        List<TelemetryEvent> used0 = metrics(events, "gpu/0/memory_used_mib");
        assertThat(used0).isNotEmpty().allSatisfy(m -> {
            assertThat(m.value()).isEqualTo(1000.0);
            assertThat(m.device()).isEqualTo("gpu0");
        });
        assertThat(metrics(events, "gpu/0/power_w").get(0).value()).isEqualTo(100.5);
        assertThat(metrics(events, "gpu/0/utilization_pct").get(0).value()).isEqualTo(50.0);
        assertThat(metrics(events, "gpu/1/temperature_c").get(0).value()).isEqualTo(61.0);
        // [N/A] and [Not Supported] are not published as numbers
        assertThat(metrics(events, "gpu/1/utilization_pct")).isEmpty();
        assertThat(metrics(events, "gpu/1/power_w")).isEmpty();
        // one long-running process per start, restarted after each death, with back-off
        assertThat(fake.streamStarts()).isGreaterThanOrEqualTo(2);
        assertThat(statuses(events))
                .anySatisfy(
                        s -> assertThat(s)
                                .isEqualTo(
                                        "nvidia-smi stopped (exit code 3: Unable to determine the device handle for GPU 0000:01:00.0: Unknown Error); restarting in 100 ms"));
        assertThat(statuses(events)).anySatisfy(s -> assertThat(s).endsWith("restarting in 200 ms"));
        assertThat(statuses(events)).anySatisfy(s -> assertThat(s).startsWith("GPU telemetry running"));
    }

    @Test
    void reportsWhichProcessesHoldGpuMemory(@TempDir Path dir) throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        List<EngineEvent> events = Collections.synchronizedList(new ArrayList<>());
        try (TelemetryMonitor monitor = new TelemetryMonitor(fake.runner(), FakeNvidiaSmi.host(List.of()), FAST)) {
            monitor.subscribe(events::add, EventBus.Delivery.LOSSLESS);
            monitor.start();
            waitFor(
                    events,
                    e -> e.stream()
                            .anyMatch(x -> x instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.PROCESSES));
        }

        TelemetryEvent processes;
        synchronized (events) {
            processes = events.stream()
                    .filter(x -> x instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.PROCESSES)
                    .map(x -> (TelemetryEvent) x)
                    .findFirst()
                    .orElseThrow();
        }
        assertThat(processes.processes())
                .containsExactly(new GpuProcess(4242L, "C:\\Program Files\\Python311\\python.exe", 900L, "GPU-aaaa-0"));
    }

    @Test
    void withoutNvidiaSmiTheCpuIsStillMeasured(@TempDir Path dir) throws Exception {
        List<EngineEvent> events = Collections.synchronizedList(new ArrayList<>());
        NvidiaSmi missing = new NvidiaSmi(dir.toString(), Duration.ofSeconds(1));
        try (TelemetryMonitor monitor = new TelemetryMonitor(missing, FakeNvidiaSmi.host(List.of()), FAST)) {
            monitor.subscribe(events::add, EventBus.Delivery.LOSSLESS);
            monitor.start();
            waitFor(events, e -> metrics(events, "cpu/heap_used_mib").size() >= 2);
        }

        assertThat(statuses(events)).contains("no GPU telemetry: nvidia-smi was not found on PATH");
        assertThat(metrics(events, "cpu/load_pct").get(0).value()).isEqualTo(25.0);
        assertThat(metrics(events, "cpu/heap_used_mib").get(0).value()).isPositive();
        assertThat(metrics(events, "cpu/heap_max_mib").get(0).device()).isEqualTo("cpu");
        assertThat(metrics(events, "cpu/offheap_mib")).isNotEmpty();
        assertThat(metrics(events, "cpu/memory_used_mib").get(0).value()).isEqualTo(65536.0 - 60000.0);
    }
}
