package org.traindeck.engine.devices;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.traindeck.engine.api.devices.HostInfo;

/**
 * A fake nvidia-smi executable in its own folder, put first on a PATH. It prints canned output: a two-GPU box, or a
 * driver failure ({@link #fail()}); in streaming mode (-lms) it prints a few samples and then dies, as a crashing
 * nvidia-smi does. Every streaming start is counted in the file "starts".
 */
final class FakeNvidiaSmi {

    static final String GPUS = """
            index, uuid, name, pci.bus_id, memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, power.draw [W]
            0, GPU-aaaa-0, NVIDIA GeForce RTX 3090, 00000000:01:00.0, 24576, 1000, 50, 60, 100.5
            1, GPU-bbbb-1, NVIDIA GeForce RTX 3090, 00000000:02:00.0, 24576, 2000, [N/A], 61, [Not Supported]
            """;

    static final String APPS = """
            pid, process_name, used_gpu_memory [MiB], gpu_uuid
            4242, C:\\Program Files\\Python311\\python.exe, 900, GPU-aaaa-0
            """;

    private final Path dir;

    FakeNvidiaSmi(Path dir) throws IOException {
        this.dir = dir;
        Files.writeString(dir.resolve("gpus.csv"), GPUS);
        Files.writeString(dir.resolve("apps.csv"), APPS);
        Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, """
                #!/bin/sh
                here=$(dirname "$0")
                if [ -f "$here/fail" ]; then
                  echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."
                  exit 9
                fi
                case "$*" in
                  *--query-compute-apps*) cat "$here/apps.csv"; exit 0 ;;
                  *-lms*)
                    echo x >> "$here/starts"
                    echo "index, memory.used [MiB], memory.total [MiB], utilization.gpu [%], temperature.gpu, power.draw [W]"
                    for i in 1 2 3; do
                      echo "0, 1000, 24576, 50, 60, 100.5"
                      echo "1, 2000, 24576, [N/A], 61, [Not Supported]"
                      sleep 0.05
                    done
                    echo "Unable to determine the device handle for GPU 0000:01:00.0: Unknown Error" >&2
                    exit 3 ;;
                  *) cat "$here/gpus.csv" ;;
                esac
                """);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** Runner that finds this fake first on PATH, before any real nvidia-smi. */
    NvidiaSmi runner() {
        return new NvidiaSmi(dir + File.pathSeparator + System.getenv("PATH"), Duration.ofSeconds(10));
    }

    void fail() throws IOException {
        Files.writeString(dir.resolve("fail"), "");
    }

    int streamStarts() throws IOException {
        Path starts = dir.resolve("starts");
        return Files.exists(starts) ? Files.readAllLines(starts).size() : 0;
    }

    /** A host with no real hardware behind it. */
    static HostProbe host(List<HostProbe.GraphicsCard> cards) {
        return new HostProbe() {
            @Override
            public HostInfo host() {
                return new HostInfo("Test CPU 9000", 8, 16, 65536, 60000);
            }

            @Override
            public List<GraphicsCard> graphicsCards() {
                return cards;
            }

            @Override
            public double cpuLoad() {
                return 0.25;
            }
        };
    }
}
