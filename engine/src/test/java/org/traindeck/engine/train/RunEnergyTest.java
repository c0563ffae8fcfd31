package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;

/**
 * A real short CPU run measures its energy from the powercap folder it is given, by stage, or says why it cannot: in
 * its log, its folder's energy record and the runs table.
 */
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

    /** The zone's counter set to {@code microjoules} on the training thread after global step {@code step}. */
    private static RunFaults counterAfterStep(long step, Path zone, long microjoules) {
        return new RunFaults() {
            @Override
            public void afterStep(long globalStep) {
                if (globalStep == step) {
                    try {
                        Files.writeString(zone.resolve("energy_uj"), microjoules + "\n");
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        };
    }

    @Test
    void theCpuPackagesEnergyBecomesAMetricALogLineAndTheRunsTablesFigure() throws Exception {
        Path zone = Files.createDirectories(dir.resolve("powercap/intel-rapl:0"));
        Files.writeString(zone.resolve("max_energy_range_uj"), "262143328850\n");
        Files.writeString(zone.resolve("energy_uj"), "262000000000\n");
        // the package uses 1 Wh (3,600 J) while the run trains, across the counter's wrap
        TrainingRun run = TrainingRun.open(RunRequest.of(config("measured"))
                .on(new DeviceDiscovery(NvidiaSmi.system(), new OshiHostProbe(), dir.resolve("powercap")))
                .withFaults(counterAfterStep(1, zone, 3_600_000_000L - 143_328_850L)));
        RunResult result = run.runHere();

        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(result.lastMetrics().get("energy/cpu_wh")).isCloseTo(1.0, within(1e-9));
        assertThat(Files.readString(result.runDir().resolve("metrics.jsonl"))).contains("\"energy/cpu_wh\"");
        assertThat(Files.readString(result.runDir().resolve("train.log"))).contains("energy: cpu 1.0 Wh");
        List<RunSummary> runs = Engine.local().pastRuns().list(dir.resolve("out"));
        assertThat(runs).singleElement().satisfies(r -> {
            assertThat(r.energyWh()).isCloseTo(1.0, within(1e-9));
            assertThat(r.energyNote()).isNull();
            assertThat(r.energyText()).isEqualTo("1.0 Wh");
        });
    }

    @Test
    void eachStageGetsItsShareAndItsWattHoursPerThousandSamples() throws Exception {
        Path zone = Files.createDirectories(dir.resolve("powercap/intel-rapl:0"));
        Files.writeString(zone.resolve("max_energy_range_uj"), "262143328850\n");
        Files.writeString(zone.resolve("energy_uj"), "1000000\n");
        RunConfig twoStages = ConfigParser.parse("""
                {"name": "staged", "outputDir": "out", "seed": 4, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 100, "features": 4, "numClasses": 2}},
                 "stages": [{"name": "warm", "epochs": 1, "batchSize": 25},
                            {"name": "main", "epochs": 2, "batchSize": 20}]}
                """, dir).orThrow();
        // 2 Wh (7,200 J) while the second stage trains (its steps: the 5th to the 14th)
        TrainingRun run = TrainingRun.open(RunRequest.of(twoStages)
                .on(new DeviceDiscovery(NvidiaSmi.system(), new OshiHostProbe(), dir.resolve("powercap")))
                .withFaults(counterAfterStep(6, zone, 1_000_000L + 7_200_000_000L)));
        RunResult result = run.runHere();

        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        EnergyReport energy = Engine.local().pastRuns().energy(result.runDir());
        assertThat(energy.total()).isCloseTo(2.0, within(1e-9));
        assertThat(energy.stages()).extracting(EnergyReport.StageEnergy::stage).containsExactly("warm", "main");
        assertThat(energy.stages().get(0).wattHours()).isCloseTo(0.0, within(1e-9));
        assertThat(energy.stages().get(0).samples()).isEqualTo(100);
        assertThat(energy.stages().get(1).wattHours()).isCloseTo(2.0, within(1e-9));
        assertThat(energy.stages().get(1).samples()).isEqualTo(200);
        assertThat(energy.stages().get(1).perThousandSamples()).isCloseTo(10.0, within(1e-9));
        assertThat(energy.summary())
                .isEqualTo("energy: 2.0 Wh (cpu 2.0 Wh); stage \"warm\" 0.000 Wh, 0.000 Wh per 1,000 samples;"
                        + " stage \"main\" 2.0 Wh, 10.0 Wh per 1,000 samples");
        assertThat(Files.readString(result.runDir().resolve("train.log"))).contains(energy.summary());
    }

    @Test
    void withoutCountersTheLogSaysItCannotBeMeasuredHere() throws Exception {
        RunResult result = TrainingRun.open(RunRequest.of(config("unmeasured"))
                        .on(new DeviceDiscovery(NvidiaSmi.system(), new OshiHostProbe(), dir.resolve("no-powercap"))))
                .runHere();

        assertThat(result.lastMetrics().keySet()).noneMatch(n -> n.startsWith("energy/"));
        assertThat(Files.readString(result.runDir().resolve("train.log")))
                .contains(
                        "energy: n/a (no RAPL counters or GPU power readings): cpu: cannot be measured here: there is no "
                                + dir.resolve("no-powercap"));
        // the reason is a value: the folder's energy record, the runs table and the end-of-run line say it
        EnergyReport energy = Engine.local().pastRuns().energy(result.runDir());
        assertThat(energy.unavailable()).isEqualTo("no RAPL counters or GPU power readings");
        assertThat(energy.summary()).isEqualTo("energy: n/a (no RAPL counters or GPU power readings)");
        assertThat(Engine.local().pastRuns().list(dir.resolve("out")))
                .singleElement()
                .satisfies(r -> {
                    assertThat(r.energyWh()).isNaN();
                    assertThat(r.energyNote()).isEqualTo("no RAPL counters or GPU power readings");
                    assertThat(r.energyText()).isEqualTo("n/a (no RAPL counters or GPU power readings)");
                });
    }
}
