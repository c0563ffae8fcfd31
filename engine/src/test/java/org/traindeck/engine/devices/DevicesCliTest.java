package org.traindeck.engine.devices;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.cli.MainAccess;

/** {@code traindeck devices} end to end, with a fake nvidia-smi first on PATH. */
class DevicesCliTest {

    @Test
    void jsonListsBothGpusAndTheCpu(@TempDir Path dir) throws IOException {
        MainAccess.Result r =
                MainAccess.run(new FakeNvidiaSmi(dir).runner(), FakeNvidiaSmi.host(List.of()), "devices", "--json");

        assertThat(r.exitCode()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.stdout());
        JsonNode devices = json.get("devices");
        assertThat(devices).hasSize(3);
        assertThat(devices.get(0).get("id").asText()).isEqualTo("gpu0");
        assertThat(devices.get(0).get("memoryTotalMiB").asLong()).isEqualTo(24576);
        assertThat(devices.get(0).get("utilizationPct").asDouble()).isEqualTo(50.0);
        assertThat(devices.get(1).get("utilizationPct").isNull()).isTrue();
        assertThat(devices.get(2).get("id").asText()).isEqualTo("cpu");
        assertThat(devices.get(2).get("cores").asInt()).isEqualTo(8);
        assertThat(json.get("gpuReason").isNull()).isTrue();
    }

    @Test
    void jsonSaysWhatTheInventoryReadsFromCudaVisibleDevices(@TempDir Path dir) throws IOException {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        Path powercap = dir.resolve("no-powercap");

        JsonNode unset = devicesJson(new DeviceDiscovery(fake.runner(), FakeNvidiaSmi.host(List.of()), powercap, null));
        JsonNode set = devicesJson(
                new DeviceDiscovery(fake.runner(), FakeNvidiaSmi.host(List.of()), powercap, "GPU-bbbb,7,0"));

        assertThat(unset.get("cudaVisibleDevices").isNull()).isTrue();
        assertThat(unset.get("visibleGpus")).extracting(JsonNode::asText).containsExactly("gpu0", "gpu1");
        assertThat(unset.get("notes")).isEmpty();
        assertThat(set.get("cudaVisibleDevices").asText()).isEqualTo("GPU-bbbb,7,0");
        assertThat(set.get("visibleGpus")).extracting(JsonNode::asText).containsExactly("gpu1");
        assertThat(set.get("notes"))
                .extracting(JsonNode::asText)
                .containsExactly("CUDA_VISIBLE_DEVICES=GPU-bbbb,7,0: runs may use only gpu1 (its entry \"7\" names no"
                        + " GPU here, so CUDA ignores it and every entry after it)");
        // the inventory still lists every GPU: the variable limits what a run may use, not what is there
        assertThat(set.get("devices")).extracting(d -> d.get("id").asText()).containsExactly("gpu0", "gpu1", "cpu");
    }

    @Test
    void theCudaBuildWithoutAGpuDoesNotPromiseTheCpu(@TempDir Path dir) throws IOException {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        fake.fail();
        Path powercap = dir.resolve("no-powercap");
        DeviceDiscovery cpuBuild = new DeviceDiscovery(fake.runner(), FakeNvidiaSmi.host(List.of()), powercap, null);
        DeviceDiscovery cudaBuild =
                new DeviceDiscovery(fake.runner(), FakeNvidiaSmi.host(List.of()), powercap, null, true);

        MainAccess.Result cuda =
                MainAccess.run(Engine.withDevices(cudaBuild, TelemetryMonitor.Settings.DEFAULT), "devices");

        assertThat(cuda.exitCode()).isZero();
        assertThat(cuda.stdout())
                .contains("No GPU: nvidia-smi failed (exit code 9)")
                .contains("either. This is TrainDeck's CUDA build, which trains only on GPUs: install the NVIDIA"
                        + " driver, or use the CPU build.")
                .doesNotContain("Training runs on the CPU");
        assertThat(devicesJson(cudaBuild).get("backend").asText()).isEqualTo("cuda");
        assertThat(devicesJson(cpuBuild).get("backend").asText()).isEqualTo("cpu");
        assertThat(BackendBuild.cuda()).as("the build these tests run in").isFalse();
    }

    private static JsonNode devicesJson(DeviceDiscovery discovery) throws IOException {
        MainAccess.Result r =
                MainAccess.run(Engine.withDevices(discovery, TelemetryMonitor.Settings.DEFAULT), "devices", "--json");
        assertThat(r.exitCode()).isZero();
        return new ObjectMapper().readTree(r.stdout());
    }

    @Test
    void tableShowsUnknownValuesAsDashes(@TempDir Path dir) throws IOException {
        MainAccess.Result r = MainAccess.run(new FakeNvidiaSmi(dir).runner(), FakeNvidiaSmi.host(List.of()), "devices");

        assertThat(r.exitCode()).isZero();
        List<String> lines = r.stdout().lines().toList();
        assertThat(lines.get(1))
                .startsWith("gpu0")
                .contains("NVIDIA GeForce RTX 3090", "1000 / 24576 MiB", "50%", "60°C", "100.5 W");
        assertThat(lines.get(2)).startsWith("gpu1").contains("2000 / 24576 MiB").endsWith("-");
        assertThat(lines.get(3)).startsWith("cpu").contains("Test CPU 9000", "5536 / 65536 MiB");
        assertThat(r.stdout()).doesNotContain("No GPU");
    }

    @Test
    void aBrokenDriverStillListsTheCpuAndSaysWhy(@TempDir Path dir) throws IOException {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        fake.fail();

        MainAccess.Result r = MainAccess.run(fake.runner(), FakeNvidiaSmi.host(List.of()), "devices");

        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout())
                .contains("cpu ")
                .contains("No GPU: nvidia-smi failed (exit code 9)")
                .contains("Training runs on the CPU.");
    }

    @Test
    void watchStreamsALinePerDevice(@TempDir Path dir) throws IOException {
        MainAccess.Result r = MainAccess.run(
                new FakeNvidiaSmi(dir).runner(),
                FakeNvidiaSmi.host(List.of()),
                "devices",
                "--watch",
                "--interval",
                "200",
                "--samples",
                "4");

        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout())
                .contains("gpu0  memory 1000/24576 MiB  util 50%  60°C  100.5 W")
                .contains("gpu1  memory 2000/24576 MiB  61°C")
                .contains("cpu   load 25%")
                .contains("process 4242 C:\\Program Files\\Python311\\python.exe holds 900 MiB on gpu0");
        int gpu0 = r.stdout().indexOf(" gpu0 ");
        int gpu1 = r.stdout().indexOf(" gpu1 ", gpu0);
        int cpu = r.stdout().indexOf(" cpu ", gpu1);
        assertThat(gpu0).isLessThan(gpu1).isLessThan(cpu);
    }

    @Test
    void badWatchOptionsAreUsageErrors(@TempDir Path dir) {
        NvidiaSmi none = new NvidiaSmi(dir.toString(), Duration.ofSeconds(1));
        assertThat(MainAccess.run(none, FakeNvidiaSmi.host(List.of()), "devices", "--interval")
                        .exitCode())
                .isEqualTo(2);
        assertThat(MainAccess.run(none, FakeNvidiaSmi.host(List.of()), "devices", "--samples", "0")
                        .exitCode())
                .isEqualTo(2);
        assertThat(MainAccess.run(none, FakeNvidiaSmi.host(List.of()), "devices", "--all")
                        .exitCode())
                .isEqualTo(2);
    }

    @Test
    void trainingRefusesAMissingGpuBeforeCreatingAnything(@TempDir Path dir) throws IOException {
        Path smiDir = Files.createDirectories(dir.resolve("smi"));
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "gpu", "devices": [0, 5], "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}},
                 "stages": [{"epochs": 1}]}
                """);

        MainAccess.Result r = MainAccess.run(
                new FakeNvidiaSmi(smiDir).runner(), FakeNvidiaSmi.host(List.of()), "train", config.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("error: devices: there is no GPU 5 (this machine has GPU 0, 1)");
        assertThat(dir.resolve("runs")).doesNotExist();
    }

    @Test
    void anExistingGpuOnTheCpuBuildIsRefusedWithTheFix(@TempDir Path dir) throws IOException {
        Path smiDir = Files.createDirectories(dir.resolve("smi"));
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "gpu", "devices": [1], "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}},
                 "stages": [{"epochs": 1}]}
                """);

        MainAccess.Result r = MainAccess.run(
                new FakeNvidiaSmi(smiDir).runner(), FakeNvidiaSmi.host(List.of()), "train", config.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr())
                .contains("devices: asks for GPU [1], but this TrainDeck build uses ND4J's CPU backend")
                .contains("mvn -Pcuda");
    }

    @Test
    void allGpusOnTheCpuBuildTrainsOnTheCpuWithAWarning(@TempDir Path dir) throws IOException {
        Path smiDir = Files.createDirectories(dir.resolve("smi"));
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "all", "devices": "all", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "synthetic", "samples": 40, "features": 3}}, "stages": [{"epochs": 1}]}
                """);

        MainAccess.Result r = MainAccess.run(
                new FakeNvidiaSmi(smiDir).runner(), FakeNvidiaSmi.host(List.of()), "train", config.toString());

        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout())
                .contains("warning: devices \"all\": this TrainDeck build uses ND4J's CPU backend")
                .contains("on cpu");
    }
}
