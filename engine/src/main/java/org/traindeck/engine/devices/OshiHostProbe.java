package org.traindeck.engine.devices;

import java.util.List;
import org.traindeck.engine.api.devices.HostInfo;
import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.GlobalMemory;
import oshi.hardware.HardwareAbstractionLayer;

/** {@link HostProbe} through OSHI. */
public final class OshiHostProbe implements HostProbe {

    private final HardwareAbstractionLayer hardware = new SystemInfo().getHardware();
    private long[] previousTicks;

    @Override
    public HostInfo host() {
        CentralProcessor cpu = hardware.getProcessor();
        GlobalMemory memory = hardware.getMemory();
        return new HostInfo(
                cpu.getProcessorIdentifier().getName().strip(),
                cpu.getPhysicalProcessorCount(),
                cpu.getLogicalProcessorCount(),
                memory.getTotal() >> 20,
                memory.getAvailable() >> 20);
    }

    @Override
    public List<GraphicsCard> graphicsCards() {
        try {
            return hardware.getGraphicsCards().stream()
                    .map(g -> new GraphicsCard(g.getName(), g.getVendor(), Math.max(0, g.getVRam())))
                    .toList();
        } catch (RuntimeException | LinkageError e) {
            // Graphics-card discovery needs optional native libraries on some systems: absent, we know no cards.
            return List.of();
        }
    }

    @Override
    public synchronized double cpuLoad() {
        CentralProcessor cpu = hardware.getProcessor();
        long[] ticks = cpu.getSystemCpuLoadTicks();
        double load = previousTicks == null ? -1 : cpu.getSystemCpuLoadBetweenTicks(previousTicks);
        previousTicks = ticks;
        return load;
    }
}
