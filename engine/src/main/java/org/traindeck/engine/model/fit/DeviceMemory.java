package org.traindeck.engine.model.fit;

import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.config.DeviceSelection;

/**
 * Memory one device offers a run, and how many model replicas share it: the CPU's workers all live in this one
 * process, so {@code cpu:N} puts N replicas on the CPU's memory; each GPU holds one.
 */
public record DeviceMemory(String device, long availableBytes, int replicas, String limitedBy) {

    public DeviceMemory(String device, long availableBytes, int replicas) {
        this(device, availableBytes, replicas, device.equals("cpu") ? "available RAM" : "free");
    }

    /**
     * The selected devices' memory: each GPU's free memory as nvidia-smi gives it (a GPU whose figures are missing
     * is left out: nothing can be said of it), the CPU's available RAM, capped by ND4J's off-heap limit
     * {@code offHeapLimit} when positive: ND4J allocates off the heap, so the heap's maximum is not the limit.
     */
    public static List<DeviceMemory> of(
            DeviceSelection selection, HostInfo host, List<GpuInfo> gpus, long offHeapLimit) {
        List<DeviceMemory> found = new ArrayList<>();
        if (selection.kind() == DeviceSelection.Kind.CPU) {
            long ram = host.memoryAvailableMiB() << 20;
            boolean capped = offHeapLimit > 0 && offHeapLimit < ram;
            found.add(new DeviceMemory(
                    "cpu",
                    capped ? offHeapLimit : ram,
                    selection.cpuWorkers(),
                    capped ? "ND4J's off-heap limit, org.bytedeco.javacpp.maxbytes" : "available RAM"));
            return found;
        }
        for (GpuInfo gpu : gpus) {
            boolean chosen = selection.kind() == DeviceSelection.Kind.ALL_GPUS
                    || selection.gpuIndices().contains(gpu.index());
            if (chosen && gpu.memoryTotalMiB() != null && gpu.memoryUsedMiB() != null) {
                found.add(new DeviceMemory(gpu.id(), (gpu.memoryTotalMiB() - gpu.memoryUsedMiB()) << 20, 1));
            }
        }
        return found;
    }
}
