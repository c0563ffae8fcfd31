package org.traindeck.engine.api.devices;

import java.util.List;

/**
 * What a run can train on: the host (always, as the "cpu" device) and the NVIDIA GPUs found. When there is no GPU,
 * {@code noGpuReason} says why (no nvidia-smi, a failing driver, none listed); {@code notes} holds other findings
 * worth showing, such as a card OSHI sees but nvidia-smi does not.
 */
public record DeviceInventory(HostInfo host, List<GpuInfo> gpus, String noGpuReason, List<String> notes) {

    public DeviceInventory {
        gpus = List.copyOf(gpus);
        notes = List.copyOf(notes);
    }

    public boolean hasGpus() {
        return !gpus.isEmpty();
    }
}
