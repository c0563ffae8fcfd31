package org.traindeck.engine.devices;

/** The machine's CPU and memory. */
public record HostInfo(
        String cpuModel, int physicalCores, int logicalCores, long memoryTotalMiB, long memoryAvailableMiB) {}
