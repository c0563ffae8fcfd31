package org.traindeck.engine.api.devices;

/**
 * One NVIDIA GPU as nvidia-smi reports it. A value the driver does not give ([N/A], [Not Supported], MIG slices'
 * utilisation, ...) is null: never a made-up zero.
 */
public record GpuInfo(
        int index,
        String uuid,
        String name,
        String pciBusId,
        Long memoryTotalMiB,
        Long memoryUsedMiB,
        Double utilizationPct,
        Double temperatureC,
        Double powerW) {

    /** The id TrainDeck uses for this device in events and the UI ("gpu0"). */
    public String id() {
        return "gpu" + index;
    }

    public GpuInfo withMemoryTotal(Long total) {
        return new GpuInfo(index, uuid, name, pciBusId, total, memoryUsedMiB, utilizationPct, temperatureC, powerW);
    }
}
