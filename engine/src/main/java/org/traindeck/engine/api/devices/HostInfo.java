package org.traindeck.engine.api.devices;

/** The machine's CPU and memory. */
public record HostInfo(
        String cpuModel, int physicalCores, int logicalCores, long memoryTotalMiB, long memoryAvailableMiB) {}
