package org.traindeck.engine.devices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.devices.energy.EnergyMeter;

/** A run's energy from the fake nvidia-smi's recorded stream (GPU 0 at 100.5 W, GPU 1 without power.draw) and a fake powercap folder. */
class EnergyMeterTest {

    @Test
    void integratesTheRunsGpusAndReadsTheCpuPackages(@TempDir Path dir) throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(Files.createDirectories(dir.resolve("smi")));
        Path powercap = Files.createDirectories(dir.resolve("powercap/intel-rapl:0"));
        Files.writeString(powercap.resolve("max_energy_range_uj"), "262143328850\n");
        Files.writeString(powercap.resolve("energy_uj"), "1000000\n");
        long started = System.currentTimeMillis();
        EnergyMeter meter = new EnergyMeter(
                new EnergyMeter.Sources(fake.runner(), FakeNvidiaSmi.host(List.of()), dir.resolve("powercap")),
                List.of(0, 1),
                Duration.ofMillis(50),
                Duration.ofHours(1));
        // a few of the fake's streams (each prints three samples, then dies and is restarted)
        await().atMost(Duration.ofMinutes(3)).until(() -> fake.streamStarts() >= 3);
        Files.writeString(powercap.resolve("energy_uj"), (1_000_000 + 7_200_000_000L) + "\n");
        EnergyReport r = meter.stop();
        long elapsed = System.currentTimeMillis() - started;

        assertThat(r.wattHours().get("gpu0")).isPositive().isLessThan(100.5 * elapsed / 3.6e6);
        assertThat(r.wattHours()).doesNotContainKey("gpu1");
        assertThat(r.wattHours().get("cpu")).isCloseTo(2.0, within(1e-9));
        assertThat(r.notes()).contains("gpu1: cannot be measured here (nvidia-smi reported no power.draw)");
        assertThat(r.line()).startsWith("energy: gpu0 ").contains("cpu 2.0 Wh");
        assertThat(meter.stop()).isSameAs(r);
    }

    @Test
    void aCpuRunWithoutPowercapSaysItCannotBeMeasured(@TempDir Path dir) {
        EnergyReport r = new EnergyMeter(
                        new EnergyMeter.Sources(null, null, dir.resolve("none")),
                        List.of(),
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(10))
                .stop();
        assertThat(r.wattHours()).isEmpty();
        assertThat(r.unavailable()).isEqualTo("no RAPL counters or GPU power readings");
        assertThat(r.summary()).isEqualTo("energy: n/a (no RAPL counters or GPU power readings)");
        assertThat(r.cell()).isEqualTo("n/a (no RAPL counters or GPU power readings)");
        assertThat(r.line())
                .isEqualTo("energy: n/a (no RAPL counters or GPU power readings): cpu: cannot be measured here: there"
                        + " is no " + dir.resolve("none")
                        + " (no RAPL energy counters on this machine or in this container)");
    }
}
