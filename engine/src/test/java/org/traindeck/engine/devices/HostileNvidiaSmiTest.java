package org.traindeck.engine.devices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.devices.GpuInfo;

/** An nvidia-smi that lies, floods or hangs: its output is bounded, checked, and the whole process tree is ended. */
class HostileNvidiaSmiTest {

    private static NvidiaSmi fake(Path dir, String script, Duration timeout) throws IOException {
        Path exe = dir.resolve("nvidia-smi");
        Files.writeString(exe, "#!/bin/sh\n" + script);
        Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new NvidiaSmi(dir.toString(), timeout);
    }

    @Test
    void anEndlessOutputIsCutAtItsLimitAndTheProcessEnded(@TempDir Path dir) throws Exception {
        NvidiaSmi smi =
                fake(dir, "yes '0, GPU-aaaa, Fake GPU, 00:01.0, 24576, 1000, 50, 60, 100'\n", Duration.ofSeconds(30));

        assertThatThrownBy(smi::queryGpus)
                .isInstanceOf(NvidiaSmiException.class)
                .hasMessageContaining("printed more than 4 MB");
    }

    @Test
    void anEndlessLineInTheTelemetryStreamIsRefused() {
        BoundedLineReader in =
                new BoundedLineReader(new StringReader("x".repeat(BoundedLineReader.MAX_LINE_CHARS + 10)));
        assertThatThrownBy(in::readLine).isInstanceOf(IOException.class).hasMessageContaining("longer than 64 kB");
    }

    @Test
    void impossibleValuesAreUnreadableAndARepeatedGpuIsOneGpu() {
        List<GpuInfo> gpus = NvidiaSmiParser.parseGpus("""
                index, uuid, name, pci.bus_id, memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, power.draw [W]
                1e300, GPU-huge, Fake, 00:09.0, 24576, 1000, 50, 60, 100
                0, GPU-aaaa, Fake, 00:01.0, -24576, -5, 300, 9999, -40
                0, GPU-aaaa, Fake, 00:01.0, 24576, 1000, 50, 60, 100
                0, GPU-aaaa, Fake, 00:01.0, 24576, 1000, 50, 60, 100
                1, GPU-bbbb, Fake, 00:02.0, 24576, 30000, 50, 60, 100
                """);

        assertThat(gpus).extracting(GpuInfo::index).containsExactly(0, 1);
        GpuInfo first = gpus.get(0);
        assertThat(first.memoryTotalMiB()).isNull();
        assertThat(first.memoryUsedMiB()).isNull();
        assertThat(first.utilizationPct()).isNull();
        assertThat(first.temperatureC()).isNull();
        assertThat(first.powerW()).isNull();
        // more used than there is
        assertThat(gpus.get(1).memoryUsedMiB()).isNull();
        assertThat(gpus.get(1).memoryTotalMiB()).isEqualTo(24576);
    }

    @Test
    void aHungNvidiaSmiIsEndedWithEveryProcessItStarted(@TempDir Path dir) throws Exception {
        NvidiaSmi smi =
                fake(dir, "sleep 600 &\necho $! > \"$(dirname \"$0\")/child.pid\"\nwait\n", Duration.ofSeconds(2));

        assertThatThrownBy(smi::queryGpus)
                .isInstanceOf(NvidiaSmiException.class)
                .hasMessageContaining("did not answer within 2 s");

        long child = Long.parseLong(Files.readString(dir.resolve("child.pid")).strip());
        await().atMost(Duration.ofMinutes(2))
                .until(() -> ProcessHandle.of(child).map(h -> !h.isAlive()).orElse(true));
    }
}
