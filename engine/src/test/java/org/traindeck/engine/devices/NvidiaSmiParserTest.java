package org.traindeck.engine.devices;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.events.GpuProcess;

/** nvidia-smi outputs written by hand from its documented CSV format, with the cases real machines produce. */
class NvidiaSmiParserTest {

    @Test
    void twoGpusWithoutUnits() {
        List<GpuInfo> gpus = NvidiaSmiParser.parseGpus("""
                index, uuid, name, pci.bus_id, memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, power.draw [W]
                0, GPU-1a2b3c4d-0000-1111-2222-333344445555, NVIDIA RTX A6000, 00000000:17:00.0, 49140, 1024, 37, 45, 72.31
                1, GPU-9f8e7d6c-0000-1111-2222-333344445555, NVIDIA RTX A6000, 00000000:65:00.0, 49140, 3, 0, 31, 21.05
                """);

        assertThat(gpus)
                .containsExactly(
                        new GpuInfo(
                                0,
                                "GPU-1a2b3c4d-0000-1111-2222-333344445555",
                                "NVIDIA RTX A6000",
                                "00000000:17:00.0",
                                49140L,
                                1024L,
                                37.0,
                                45.0,
                                72.31),
                        new GpuInfo(
                                1,
                                "GPU-9f8e7d6c-0000-1111-2222-333344445555",
                                "NVIDIA RTX A6000",
                                "00000000:65:00.0",
                                49140L,
                                3L,
                                0.0,
                                31.0,
                                21.05));
        assertThat(gpus.get(1).id()).isEqualTo("gpu1");
    }

    @Test
    void unitsInTheValuesAreStripped() {
        List<GpuInfo> gpus = NvidiaSmiParser.parseGpus("""
                index, uuid, name, pci.bus_id, memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, power.draw [W]
                0, GPU-a, Tesla V100-SXM2-16GB, 00000000:00:1E.0, 16160 MiB, 0 MiB, 12 %, 38, 24.50 W
                """);

        assertThat(gpus.get(0).memoryTotalMiB()).isEqualTo(16160L);
        assertThat(gpus.get(0).utilizationPct()).isEqualTo(12.0);
        assertThat(gpus.get(0).powerW()).isEqualTo(24.5);
    }

    @Test
    void unreadableValuesAreAbsentNotZero() {
        List<GpuInfo> gpus = NvidiaSmiParser.parseGpus("""
                index, uuid, name, pci.bus_id, memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, power.draw [W]
                0, GPU-a, NVIDIA A100-SXM4-40GB, 00000000:07:00.0, 40960, 37, [N/A], 33, [Not Supported]
                1, GPU-b, NVIDIA GeForce GT 710, 00000000:01:00.0, [Requested functionality has been deprecated], N/A, garbage, , 5.1
                """);

        GpuInfo mig = gpus.get(0);
        assertThat(mig.utilizationPct()).isNull();
        assertThat(mig.powerW()).isNull();
        assertThat(mig.memoryUsedMiB()).isEqualTo(37L);
        GpuInfo old = gpus.get(1);
        assertThat(old.memoryTotalMiB()).isNull();
        assertThat(old.memoryUsedMiB()).isNull();
        assertThat(old.utilizationPct()).isNull();
        assertThat(old.temperatureC()).isNull();
        assertThat(old.powerW()).isEqualTo(5.1);
    }

    @Test
    void columnOrderIsTakenFromTheHeader() {
        List<GpuInfo> gpus = NvidiaSmiParser.parseGpus("""
                name, memory.used [MiB], index, temperature.gpu, uuid
                NVIDIA GeForce RTX 3090, 512, 3, 60, GPU-c
                """);

        GpuInfo g = gpus.get(0);
        assertThat(g.index()).isEqualTo(3);
        assertThat(g.name()).isEqualTo("NVIDIA GeForce RTX 3090");
        assertThat(g.memoryUsedMiB()).isEqualTo(512L);
        assertThat(g.temperatureC()).isEqualTo(60.0);
        assertThat(g.memoryTotalMiB()).isNull();
        assertThat(g.pciBusId()).isNull();
    }

    @Test
    void blankLinesNonAsciiNamesAndCommasInNames() {
        List<GpuInfo> gpus = NvidiaSmiParser.parseGpus("""

                index, uuid, name, memory.total [MiB]

                0, GPU-a, NVIDIA GeForce RTX 4090 – Édition Spéciale, 24564

                1, GPU-b, Quadro RTX 8000, rev. B, 46080
                not a row at all
                """);

        assertThat(gpus)
                .extracting(GpuInfo::name)
                .containsExactly("NVIDIA GeForce RTX 4090 – Édition Spéciale", "Quadro RTX 8000, rev. B");
        assertThat(gpus.get(1).memoryTotalMiB()).isEqualTo(46080L);
    }

    @Test
    void outputWithoutAHeaderOrEmptyGivesNoGpus() {
        assertThat(NvidiaSmiParser.parseGpus("")).isEmpty();
        assertThat(NvidiaSmiParser.parseGpus("0, GPU-a, NVIDIA A10, 23028\n")).isEmpty();
    }

    @Test
    void computeAppsWithWindowsPathsAndIdleOutput() {
        List<GpuProcess> apps = NvidiaSmiParser.parseComputeApps("""
                pid, process_name, used_memory [MiB], gpu_uuid
                4242, C:\\Program Files\\Python311\\python.exe, 10240 MiB, GPU-a
                77, /usr/bin/java, [N/A], GPU-b
                5150, C:\\Users\\Ann Lee\\apps\\trainer, v2\\run.exe, 512, GPU-a
                """);

        assertThat(apps)
                .containsExactly(
                        new GpuProcess(4242L, "C:\\Program Files\\Python311\\python.exe", 10240L, "GPU-a"),
                        new GpuProcess(77L, "/usr/bin/java", null, "GPU-b"),
                        new GpuProcess(5150L, "C:\\Users\\Ann Lee\\apps\\trainer, v2\\run.exe", 512L, "GPU-a"));
        assertThat(NvidiaSmiParser.parseComputeApps("pid, process_name, used_memory [MiB], gpu_uuid\n"))
                .isEmpty();
        assertThat(NvidiaSmiParser.parseComputeApps("")).isEmpty();
        assertThat(NvidiaSmiParser.parseComputeApps(
                        "pid, process_name, used_memory [MiB], gpu_uuid\nNo running processes found\n"))
                .isEmpty();
    }
}
