package org.traindeck.engine.devices;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.model.fit.DeviceMemory;

/** The fit check's GPU memory is nvidia-smi's total less its used, per selected GPU. */
class GpuFreeMemoryTest {

    @Test
    void eachSelectedGpuOffersItsFreeMemory(@TempDir Path dir) throws IOException {
        DeviceInventory inventory =
                new DeviceDiscovery(new FakeNvidiaSmi(dir).runner(), FakeNvidiaSmi.host(List.of())).discover();

        assertThat(DeviceMemory.of(DeviceSelection.ALL, inventory.host(), inventory.gpus(), 0))
                .containsExactly(
                        new DeviceMemory("gpu0", (24576L - 1000) << 20, 1),
                        new DeviceMemory("gpu1", (24576L - 2000) << 20, 1));
        assertThat(DeviceMemory.of(DeviceSelection.gpus(List.of(1)), inventory.host(), inventory.gpus(), 0))
                .extracting(DeviceMemory::device)
                .containsExactly("gpu1");
    }
}
