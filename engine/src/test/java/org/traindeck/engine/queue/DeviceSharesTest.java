package org.traindeck.engine.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.devices.DeviceDiscovery;

/** Disjoint device shares for trials trained at once. */
class DeviceSharesTest {

    private final DeviceDiscovery here = DeviceDiscovery.system();

    @Test
    void gpusAndCpuWorkersAreCutIntoDisjointShares() {
        assertThat(DeviceShares.split(DeviceSelection.gpus(List.of(0, 1, 2, 3)), 2, here))
                .containsExactly(DeviceSelection.gpus(List.of(0, 1)), DeviceSelection.gpus(List.of(2, 3)));
        assertThat(DeviceShares.split(DeviceSelection.gpus(List.of(3, 1, 2)), 2, here))
                .containsExactly(DeviceSelection.gpus(List.of(3, 1)), DeviceSelection.gpus(List.of(2)));
        assertThat(DeviceShares.split(DeviceSelection.cpuWorkers(5), 2, here))
                .containsExactly(DeviceSelection.cpuWorkers(3), DeviceSelection.cpuWorkers(2));
        assertThat(DeviceShares.split(DeviceSelection.CPU, 1, here)).containsExactly(DeviceSelection.CPU);
    }

    @Test
    void fewerDevicesThanTrialsAtOnceIsRefused() {
        assertThatThrownBy(() -> DeviceShares.split(DeviceSelection.gpus(List.of(0)), 2, here))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("2 trials at once need 2 disjoint device sets")
                .hasMessageContaining("GPU 0 is 1 GPU(s)");
        assertThatThrownBy(() -> DeviceShares.split(DeviceSelection.CPU, 3, here))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("the CPU is 1 CPU worker(s)");
    }
}
