package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.devices.TelemetryMonitor;

/** {@code traindeck train}'s last line and {@code traindeck runs} say the run's energy, or why there is none. */
class EnergyWhereTheUserLooksTest {

    @TempDir
    Path dir;

    private MainAccess.Result cli(Path powercap, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Engine engine = Engine.withDevices(
                new DeviceDiscovery(new NvidiaSmi("", Duration.ofSeconds(1)), new OshiHostProbe(), powercap),
                TelemetryMonitor.Settings.DEFAULT);
        int code = new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        engine)
                .run(args);
        return new MainAccess.Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path config(String name) throws Exception {
        return Files.writeString(dir.resolve(name + ".json"), """
                {"name": "%s", "outputDir": "out", "seed": 4, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 100, "features": 4, "numClasses": 2}},
                 "stages": [{"name": "main", "epochs": 1, "batchSize": 25}]}
                """.formatted(name));
    }

    private static String lastLine(String text) {
        List<String> lines = text.lines().toList();
        return lines.get(lines.size() - 1);
    }

    @Test
    void withoutCountersTheLastLineAndTheRunsTableSayWhy() throws Exception {
        Path none = dir.resolve("no-powercap");
        MainAccess.Result train = cli(none, "train", config("plain").toString());

        assertThat(train.exitCode()).as(train.stderr()).isZero();
        assertThat(lastLine(train.stdout())).isEqualTo("energy: n/a (no RAPL counters or GPU power readings)");

        MainAccess.Result runs = cli(none, "runs", dir.resolve("out").toString());
        assertThat(runs.stdout().lines().filter(l -> l.startsWith("plain")))
                .singleElement()
                .asString()
                .contains(" n/a ");
        assertThat(runs.stdout()).contains("energy n/a: no RAPL counters or GPU power readings (plain");
        JsonNode json = new ObjectMapper()
                .readTree(cli(none, "runs", dir.resolve("out").toString(), "--json")
                        .stdout());
        assertThat(json.get(0).get("energyWh").isNull()).isTrue();
        assertThat(json.get(0).get("energyNote").asText()).isEqualTo("no RAPL counters or GPU power readings");

        // a damaged record is said as the reason; the listing still works
        try (var folders = Files.list(dir.resolve("out"))) {
            Files.writeString(
                    folders.filter(Files::isDirectory).findFirst().orElseThrow().resolve("energy.json"),
                    "{\"wattHours\": [");
        }
        MainAccess.Result damaged = cli(none, "runs", dir.resolve("out").toString());
        assertThat(damaged.exitCode()).isZero();
        assertThat(damaged.stdout()).contains("energy n/a: its energy record cannot be read: ");
    }

    @Test
    void withCountersTheLastLineSaysWattHoursPerStageAndPerThousandSamples() throws Exception {
        Path zone = Files.createDirectories(dir.resolve("powercap/intel-rapl:0"));
        Files.writeString(zone.resolve("max_energy_range_uj"), "262143328850\n");
        Files.writeString(zone.resolve("energy_uj"), "5000\n");

        MainAccess.Result train =
                cli(dir.resolve("powercap"), "train", config("metered").toString());

        assertThat(train.exitCode()).as(train.stderr()).isZero();
        // the counter did not move: zero, said as a figure, per stage and per 1,000 of its 100 samples
        assertThat(lastLine(train.stdout()))
                .isEqualTo("energy: 0.000 Wh (cpu 0.000 Wh); stage \"main\" 0.000 Wh, 0.000 Wh per 1,000 samples");
        MainAccess.Result runs =
                cli(dir.resolve("powercap"), "runs", dir.resolve("out").toString());
        assertThat(runs.stdout().lines().filter(l -> l.startsWith("metered")))
                .singleElement()
                .asString()
                .contains("0.000 Wh");
        assertThat(runs.stdout()).doesNotContain("energy n/a");
    }
}
