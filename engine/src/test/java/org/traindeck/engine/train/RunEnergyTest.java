package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.library.RunSummary;

/** A real short CPU run measures its energy from the powercap folder it is given, or says in its log why it cannot. */
class RunEnergyTest {

    @TempDir
    Path dir;

    private RunConfig config(String name) {
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 4, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 100, "features": 4, "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 25}]}
                """.formatted(name), dir).orThrow();
    }

    @Test
    void theCpuPackagesEnergyBecomesAMetricALogLineAndTheRunsTablesFigure() throws Exception {
        Path zone = Files.createDirectories(dir.resolve("powercap/intel-rapl:0"));
        Files.writeString(zone.resolve("max_energy_range_uj"), "262143328850\n");
        Files.writeString(zone.resolve("energy_uj"), "262000000000\n");
        TrainingRun run = TrainingRun.prepare(
                config("measured"),
                new DeviceDiscovery(NvidiaSmi.system(), new OshiHostProbe(), dir.resolve("powercap")));
        AtomicBoolean bumped = new AtomicBoolean();
        run.subscribe(
                e -> {
                    // the package uses 1 Wh (3,600 J) while the run trains, across the counter's wrap
                    if (e instanceof MetricEvent && bumped.compareAndSet(false, true)) {
                        try {
                            Files.writeString(zone.resolve("energy_uj"), (3_600_000_000L - 143_328_850L) + "\n");
                        } catch (IOException ex) {
                            throw new UncheckedIOException(ex);
                        }
                    }
                },
                EventBus.Delivery.LOSSLESS);
        RunResult result = run.runHere();

        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(result.lastMetrics().get("energy/cpu_wh")).isCloseTo(1.0, within(1e-9));
        assertThat(Files.readString(result.runDir().resolve("metrics.jsonl"))).contains("\"energy/cpu_wh\"");
        assertThat(Files.readString(result.runDir().resolve("train.log"))).contains("energy: cpu 1.0 Wh");
        List<RunSummary> runs = Engine.local().runs(dir.resolve("out"));
        assertThat(runs).singleElement().satisfies(r -> assertThat(r.energyWh()).isCloseTo(1.0, within(1e-9)));
    }

    @Test
    void withoutCountersTheLogSaysItCannotBeMeasuredHere() throws Exception {
        RunResult result = TrainingRun.prepare(
                        config("unmeasured"),
                        new DeviceDiscovery(NvidiaSmi.system(), new OshiHostProbe(), dir.resolve("no-powercap")))
                .runHere();

        assertThat(result.lastMetrics().keySet()).noneMatch(n -> n.startsWith("energy/"));
        assertThat(Files.readString(result.runDir().resolve("train.log")))
                .contains("energy: cannot be measured here (cpu: cannot be measured here: there is no "
                        + dir.resolve("no-powercap"));
        assertThat(Engine.local().runs(dir.resolve("out")))
                .singleElement()
                .satisfies(r -> assertThat(r.energyWh()).isNaN());
    }
}
