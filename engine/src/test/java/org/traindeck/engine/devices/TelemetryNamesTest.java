package org.traindeck.engine.devices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.TelemetryEvent;
import org.traindeck.engine.events.TelemetryNames;

/**
 * The app's device figures, its memory chart and {@code traindeck devices --watch} read telemetry by the names in
 * {@link TelemetryNames}: the monitor must publish exactly those, under that run and device.
 */
class TelemetryNamesTest {

    private static final TelemetryMonitor.Settings FAST = new TelemetryMonitor.Settings(
            Duration.ofMillis(50),
            Duration.ofMillis(200),
            Duration.ofMillis(100),
            Duration.ofMillis(100),
            Duration.ofMillis(400));

    private static Set<String> names(List<EngineEvent> events) {
        synchronized (events) {
            return events.stream()
                    .filter(e -> e instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.FIGURE)
                    .map(e -> ((TelemetryEvent) e).name())
                    .collect(Collectors.toSet());
        }
    }

    @Test
    void theMonitorPublishesEveryFigureUnderTheNamesReadersUse(@TempDir Path dir) throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        List<EngineEvent> events = Collections.synchronizedList(new ArrayList<>());
        Set<String> cpu = TelemetryNames.CPU_FIGURES.stream()
                .map(f -> TelemetryNames.CPU_PREFIX + f)
                .collect(Collectors.toSet());
        // the fake's GPU 0 reports every figure; GPU 1 has no utilisation or power
        Set<String> gpu0 = TelemetryNames.GPU_FIGURES.stream()
                .map(f -> TelemetryNames.GPU_PREFIX + "0/" + f)
                .collect(Collectors.toSet());
        try (TelemetryMonitor monitor = new TelemetryMonitor(fake.runner(), FakeNvidiaSmi.host(List.of()), FAST)) {
            monitor.subscribe(events::add, EventBus.Delivery.LOSSLESS);
            monitor.start();
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> names(events).containsAll(cpu) && names(events).containsAll(gpu0));
        }

        Set<String> known = Stream.concat(
                        cpu.stream(),
                        Stream.of(0, 1)
                                .flatMap(i -> TelemetryNames.GPU_FIGURES.stream()
                                        .map(f -> TelemetryNames.GPU_PREFIX + i + "/" + f)))
                .collect(Collectors.toSet());
        assertThat(known).containsAll(names(events));
        synchronized (events) {
            // telemetry is no run's: nothing of it travels as a run's metric
            assertThat(events).noneMatch(e -> e instanceof MetricEvent);
            assertThat(events)
                    .filteredOn(e -> e instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.FIGURE)
                    .allSatisfy(e -> {
                        TelemetryEvent m = (TelemetryEvent) e;
                        assertThat(m.device())
                                .isEqualTo(
                                        m.name().startsWith(TelemetryNames.GPU_PREFIX)
                                                ? "gpu" + m.name().split("/")[1]
                                                : TelemetryNames.CPU_DEVICE);
                    });
        }
    }
}
