package org.traindeck.engine.devices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;

class DeviceDiscoveryTest {

    @Test
    void aMultiGpuBoxIsListedWithTheHost(@TempDir Path dir) throws IOException {
        DeviceInventory inv =
                new DeviceDiscovery(new FakeNvidiaSmi(dir).runner(), FakeNvidiaSmi.host(List.of())).discover();

        assertThat(inv.gpus()).extracting(GpuInfo::id).containsExactly("gpu0", "gpu1");
        assertThat(inv.gpus().get(1).utilizationPct()).isNull();
        assertThat(inv.noGpuReason()).isNull();
        assertThat(inv.host().physicalCores()).isEqualTo(8);
    }

    @Test
    void withoutNvidiaSmiTheCpuRemainsAndTheReasonIsGiven(@TempDir Path dir) {
        NvidiaSmi missing = new NvidiaSmi(dir.toString(), Duration.ofSeconds(5));

        DeviceInventory inv = new DeviceDiscovery(missing, FakeNvidiaSmi.host(List.of())).discover();

        assertThat(inv.gpus()).isEmpty();
        assertThat(inv.noGpuReason())
                .contains("nvidia-smi was not found on PATH")
                .contains("no NVIDIA card is visible");
        assertThat(inv.host().cpuModel()).isEqualTo("Test CPU 9000");
    }

    @Test
    void aCardTheOsSeesExplainsAMissingNvidiaSmi(@TempDir Path dir) {
        NvidiaSmi missing = new NvidiaSmi(dir.toString(), Duration.ofSeconds(5));
        HostProbe probe = FakeNvidiaSmi.host(
                List.of(new HostProbe.GraphicsCard("GA102 [GeForce RTX 3090]", "NVIDIA Corporation", 0)));

        DeviceInventory inv = new DeviceDiscovery(missing, probe).discover();

        assertThat(inv.noGpuReason())
                .contains("the system reports 1 NVIDIA card(s) (GA102 [GeForce RTX 3090])")
                .contains("check the NVIDIA driver");
    }

    @Test
    void aFailingDriverIsTheReason(@TempDir Path dir) throws IOException {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        fake.fail();

        DeviceInventory inv = new DeviceDiscovery(fake.runner(), FakeNvidiaSmi.host(List.of())).discover();

        assertThat(inv.hasGpus()).isFalse();
        assertThat(inv.noGpuReason())
                .contains("nvidia-smi failed (exit code 9): NVIDIA-SMI has failed because it couldn't communicate");
    }

    @Test
    void aHungNvidiaSmiTimesOut(@TempDir Path dir) throws IOException {
        Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\nsleep 600\n");
        script.toFile().setExecutable(true);
        NvidiaSmi slow = new NvidiaSmi(dir.toString(), Duration.ofMillis(300));

        long start = System.nanoTime();
        DeviceInventory inv = new DeviceDiscovery(slow, FakeNvidiaSmi.host(List.of())).discover();

        assertThat(inv.noGpuReason()).contains("did not answer within");
        // far from the script's 600 s: the 0.3 s timeout ended the wait, however busy the machine
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(120));
    }

    @Test
    void theOsFillsAMemoryTotalNvidiaSmiLacks(@TempDir Path dir) throws IOException {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        java.nio.file.Files.writeString(dir.resolve("gpus.csv"), """
                index, uuid, name, memory.total [MiB]
                0, GPU-a, NVIDIA GeForce RTX 3090, [N/A]
                """);
        HostProbe probe = FakeNvidiaSmi.host(
                List.of(new HostProbe.GraphicsCard("NVIDIA GeForce RTX 3090", "NVIDIA Corporation", 24L << 30)));

        DeviceInventory inv = new DeviceDiscovery(fake.runner(), probe).discover();

        assertThat(inv.gpus().get(0).memoryTotalMiB()).isEqualTo(24576L);
        assertThat(inv.notes()).singleElement().satisfies(n -> assertThat(n).contains("from the OS"));
    }

    private static DeviceInventory twoGpus() {
        return new DeviceInventory(
                new HostInfo("cpu", 4, 8, 1000, 900),
                List.of(
                        new GpuInfo(0, "GPU-aaaa-0", "A", null, 100L, 1L, null, null, null),
                        new GpuInfo(1, "GPU-bbbb-1", "B", null, 100L, 1L, null, null, null)),
                null,
                List.of());
    }

    private static final DeviceInventory NO_GPU = new DeviceInventory(
            new HostInfo("cpu", 4, 8, 1000, 900), List.of(), "nvidia-smi was not found on PATH", List.of());

    @Test
    void resolvingCpuAllAndIndices() {
        assertThat(DeviceResolver.resolve(DeviceSelection.CPU, twoGpus(), null).deviceIds())
                .containsExactly("cpu");
        assertThat(DeviceResolver.resolve(DeviceSelection.ALL, twoGpus(), null).deviceIds())
                .containsExactly("gpu0", "gpu1");
        assertThat(DeviceResolver.resolve(DeviceSelection.gpus(List.of(1)), twoGpus(), null)
                        .deviceIds())
                .containsExactly("gpu1");
    }

    @Test
    void allFallsBackToTheCpuWithAWarningWhenThereIsNoGpu() {
        DeviceResolver.Resolved r = DeviceResolver.resolve(DeviceSelection.ALL, NO_GPU, null);

        assertThat(r.isCpu()).isTrue();
        assertThat(r.warnings())
                .singleElement()
                .satisfies(w -> assertThat(w).contains("training on the CPU").contains("nvidia-smi was not found"));
    }

    @Test
    void gpuIndicesThatCannotBeUsedAreClearErrors() {
        assertThatThrownBy(() -> DeviceResolver.resolve(DeviceSelection.gpus(List.of(0)), NO_GPU, null))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining(
                        "devices: asks for GPU [0], but no GPU was found: nvidia-smi was not found on PATH");
        assertThatThrownBy(() -> DeviceResolver.resolve(DeviceSelection.gpus(List.of(1, 5)), twoGpus(), null))
                .hasMessageContaining("there is no GPU 5 (this machine has GPU 0, 1)");
        assertThatThrownBy(() -> DeviceResolver.resolve(DeviceSelection.gpus(List.of(0)), twoGpus(), "1"))
                .hasMessageContaining("GPU 0 is hidden by CUDA_VISIBLE_DEVICES=1");
    }

    @Test
    void cudaVisibleDevicesByIndexOrUuidStopsAtTheFirstUnknownEntry() {
        assertThat(DeviceResolver.resolve(DeviceSelection.ALL, twoGpus(), "1").deviceIds())
                .containsExactly("gpu1");
        assertThat(DeviceResolver.resolve(DeviceSelection.ALL, twoGpus(), "GPU-bbbb,0")
                        .deviceIds())
                .containsExactly("gpu1", "gpu0");
        assertThat(DeviceResolver.resolve(DeviceSelection.ALL, twoGpus(), "0,7,1")
                        .deviceIds())
                .containsExactly("gpu0");
        DeviceResolver.Resolved none = DeviceResolver.resolve(DeviceSelection.ALL, twoGpus(), "");
        assertThat(none.isCpu()).isTrue();
        assertThat(none.warnings().get(0)).contains("every GPU is hidden (CUDA_VISIBLE_DEVICES=)");
    }

    @Test
    void theInventorySaysWhichGpusCudaVisibleDevicesLeavesARun(@TempDir Path dir) throws IOException {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        Path powercap = dir.resolve("no-powercap");

        assertThat(new DeviceDiscovery(fake.runner(), FakeNvidiaSmi.host(List.of()), powercap, null)
                        .discover()
                        .notes())
                .isEmpty();
        assertThat(new DeviceDiscovery(fake.runner(), FakeNvidiaSmi.host(List.of()), powercap, "1")
                        .discover()
                        .notes())
                .containsExactly("CUDA_VISIBLE_DEVICES=1: runs may use only gpu1");
        // as on an H200 machine with one GPU: a real driver, CUDA_VISIBLE_DEVICES=1 showed every run no GPU
        assertThat(new DeviceDiscovery(fake.runner(), FakeNvidiaSmi.host(List.of()), powercap, "2")
                        .discover()
                        .notes())
                .containsExactly("CUDA_VISIBLE_DEVICES=2 shows runs none of this machine's GPUs (gpu0, gpu1) (its"
                        + " entry \"2\" names no GPU here, so CUDA ignores it and every entry after it): a run that asks"
                        + " for a GPU is refused, and \"all\" trains on the CPU");
        assertThat(new DeviceDiscovery(fake.runner(), FakeNvidiaSmi.host(List.of()), powercap, "GPU-bbbb,7,0")
                        .discover()
                        .notes())
                .containsExactly("CUDA_VISIBLE_DEVICES=GPU-bbbb,7,0: runs may use only gpu1 (its entry \"7\" names no"
                        + " GPU here, so CUDA ignores it and every entry after it)");
    }
}
