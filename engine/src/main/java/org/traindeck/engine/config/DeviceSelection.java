package org.traindeck.engine.config;

import java.util.List;

/** Which devices a run asks for: the CPU, every GPU, or GPUs by index. */
public record DeviceSelection(Kind kind, List<Integer> gpuIndices) {

    public enum Kind { CPU, ALL_GPUS, GPU_LIST }

    public static final DeviceSelection CPU = new DeviceSelection(Kind.CPU, List.of());
    public static final DeviceSelection ALL = new DeviceSelection(Kind.ALL_GPUS, List.of());

    public DeviceSelection {
        gpuIndices = List.copyOf(gpuIndices);
    }

    public static DeviceSelection gpus(List<Integer> indices) {
        return new DeviceSelection(Kind.GPU_LIST, indices);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case CPU -> "cpu";
            case ALL_GPUS -> "all";
            case GPU_LIST -> gpuIndices.toString();
        };
    }
}
