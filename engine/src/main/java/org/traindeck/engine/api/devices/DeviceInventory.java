package org.traindeck.engine.api.devices;

import java.util.Comparator;
import java.util.List;

/**
 * What a run can train on: the host (always, as the "cpu" device) and the NVIDIA GPUs found. When there is no GPU,
 * {@code noGpuReason} says why (no nvidia-smi, a failing driver, none listed); {@code notes} holds other findings
 * worth showing, such as a card OSHI sees but nvidia-smi does not, or which GPUs CUDA_VISIBLE_DEVICES leaves a run.
 *
 * @param cudaVisibleDevices CUDA_VISIBLE_DEVICES as the GPUs were read against it (null when unset)
 * @param visibleGpus the GPUs a run may use, in the order CUDA numbers them (all of them when the variable is unset)
 * @param cudaBuild whether this is TrainDeck's CUDA build, which trains only on GPUs
 */
public record DeviceInventory(
        HostInfo host,
        List<GpuInfo> gpus,
        String noGpuReason,
        List<String> notes,
        String cudaVisibleDevices,
        List<GpuInfo> visibleGpus,
        boolean cudaBuild) {

    public DeviceInventory {
        gpus = List.copyOf(gpus);
        notes = List.copyOf(notes);
        visibleGpus = List.copyOf(visibleGpus);
    }

    /** An inventory of the CPU build. */
    public DeviceInventory(
            HostInfo host,
            List<GpuInfo> gpus,
            String noGpuReason,
            List<String> notes,
            String cudaVisibleDevices,
            List<GpuInfo> visibleGpus) {
        this(host, gpus, noGpuReason, notes, cudaVisibleDevices, visibleGpus, false);
    }

    /** An inventory of the CPU build with CUDA_VISIBLE_DEVICES unset: every GPU is visible, in index order. */
    public DeviceInventory(HostInfo host, List<GpuInfo> gpus, String noGpuReason, List<String> notes) {
        this(
                host,
                gpus,
                noGpuReason,
                notes,
                null,
                gpus.stream().sorted(Comparator.comparingInt(GpuInfo::index)).toList());
    }

    /** The line a device list shows without a GPU: why, and what training does then (this build's backend). */
    public String noGpuStatus() {
        String then = cudaBuild
                ? "This is TrainDeck's CUDA build, which trains only on GPUs: install the NVIDIA driver, or use the CPU"
                        + " build"
                : "Training runs on the CPU";
        return "No GPU: " + noGpuReason + ". " + then + ".";
    }

    public boolean hasGpus() {
        return !gpus.isEmpty();
    }
}
