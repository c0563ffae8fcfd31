package org.traindeck.engine.devices;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.events.GpuProcess;

/**
 * nvidia-smi's output as a real driver printed it (an NVIDIA H200, driver 580.159.04, CUDA 13.0; version.txt beside
 * the files), asked with TrainDeck's own arguments: idle, and while a PyTorch process multiplied matrices on the GPU.
 */
class NvidiaSmiRealOutputTest {

    private static final String UUID = "GPU-d5186d3a-2601-5eeb-c6aa-b59b83ed0aa6";

    @Test
    void theGpuQueryIsReadAsTheDriverPrintsIt() throws IOException {
        List<GpuInfo> idle = NvidiaSmiParser.parseGpus(fixture("gpus-idle.csv"));
        List<GpuInfo> busy = NvidiaSmiParser.parseGpus(fixture("gpus-busy.csv"));

        assertThat(idle)
                .containsExactly(
                        new GpuInfo(0, UUID, "NVIDIA H200", "00000000:00:06.0", 143771L, 0L, 0.0, 36.0, 79.65));
        assertThat(busy)
                .containsExactly(
                        new GpuInfo(0, UUID, "NVIDIA H200", "00000000:00:06.0", 143771L, 1395L, 99.0, 55.0, 667.15));
    }

    @Test
    void everyProcessKeepsItsMemoryUnderTheDriversColumnName() throws IOException {
        // the driver names the used_memory column "used_gpu_memory [MiB]" in its header
        assertThat(NvidiaSmiParser.parseComputeApps(fixture("apps-busy.csv")))
                .containsExactly(new GpuProcess(459L, "python3", 1386L, UUID));
        assertThat(NvidiaSmiParser.parseComputeApps(fixture("apps-idle.csv"))).isEmpty();
    }

    @Test
    void theTelemetryStreamGivesEveryRowsFigures() throws IOException {
        String[] lines = fixture("stream.csv").split("\\R");
        assertThat(NvidiaSmiParser.isHeader(lines[0], NvidiaSmiParser.GPU_FIELDS))
                .isTrue();
        NvidiaSmiParser.Header header = new NvidiaSmiParser.Header(lines[0]);
        List<GpuInfo> rows = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            rows.add(NvidiaSmiParser.parseGpuRow(header, lines[i]));
        }

        assertThat(rows).hasSize(12).allSatisfy(row -> {
            assertThat(row.index()).isZero();
            assertThat(row.memoryUsedMiB()).isEqualTo(1395L);
            assertThat(row.memoryTotalMiB()).isEqualTo(143771L);
            assertThat(row.utilizationPct()).isBetween(99.0, 100.0);
            assertThat(row.powerW()).isBetween(689.0, 700.0);
        });
        assertThat(rows.get(0).temperatureC()).isEqualTo(55.0);
    }

    private static String fixture(String name) throws IOException {
        try (InputStream in =
                NvidiaSmiRealOutputTest.class.getResourceAsStream("/nvidia-smi/h200-driver-580/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
