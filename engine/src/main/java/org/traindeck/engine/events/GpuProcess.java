package org.traindeck.engine.events;

/** A process holding memory on a GPU (from nvidia-smi --query-compute-apps). Unknown values are null. */
public record GpuProcess(Long pid, String processName, Long usedMemoryMiB, String gpuUuid) {}
