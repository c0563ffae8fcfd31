package org.traindeck.engine.queue;

import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * Cuts a device selection into disjoint shares, one per run trained at once: GPUs [0, 1, 2, 3] in two shares are
 * [0, 1] and [2, 3]; cpu:4 in two is cpu:2 and cpu:2. A selection with fewer devices than shares is refused.
 */
public final class DeviceShares {

    private DeviceShares() {}

    public static List<DeviceSelection> split(DeviceSelection selection, int shares, DeviceDiscovery discovery) {
        if (shares < 1) {
            throw new IllegalArgumentException("shares: " + shares);
        }
        DeviceSelection s = selection;
        if (s.kind() == DeviceSelection.Kind.ALL_GPUS) {
            List<Integer> gpus =
                    discovery.discover().gpus().stream().map(GpuInfo::index).toList();
            s = gpus.isEmpty() ? DeviceSelection.CPU : DeviceSelection.gpus(gpus);
        }
        List<DeviceSelection> out = new ArrayList<>();
        if (s.kind() == DeviceSelection.Kind.GPU_LIST) {
            List<Integer> gpus = s.gpuIndices();
            if (gpus.size() < shares) {
                throw refused(selection, shares, gpus.size() + " GPU(s)");
            }
            int from = 0;
            for (int i = 0; i < shares; i++) {
                int size = gpus.size() / shares + (i < gpus.size() % shares ? 1 : 0);
                out.add(DeviceSelection.gpus(List.copyOf(gpus.subList(from, from + size))));
                from += size;
            }
            return out;
        }
        if (s.cpuWorkers() < shares) {
            throw refused(selection, shares, s.cpuWorkers() + " CPU worker(s)");
        }
        for (int i = 0; i < shares; i++) {
            out.add(DeviceSelection.cpuWorkers(s.cpuWorkers() / shares + (i < s.cpuWorkers() % shares ? 1 : 0)));
        }
        return out;
    }

    private static InvalidConfigException refused(DeviceSelection selection, int shares, String has) {
        return new InvalidConfigException(
                "concurrent",
                shares + " trials at once need " + shares + " disjoint device sets, but " + selection.describe()
                        + " is " + has + ": choose more devices (--devices), or fewer trials at once");
    }
}
