package org.traindeck.engine.devices;

import java.util.List;
import org.traindeck.engine.api.devices.HostInfo;

/** The host's facts and load, as the operating system reports them. */
public interface HostProbe {

    /** A graphics card the OS knows, whatever its vendor. {@code vramBytes} is 0 when unknown. */
    record GraphicsCard(String name, String vendor, long vramBytes) {}

    HostInfo host();

    List<GraphicsCard> graphicsCards();

    /** System-wide CPU load since the previous call, 0..1; negative when not yet known. */
    double cpuLoad();
}
