package org.traindeck.engine.devices;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.javacpp.Pointer;

/** This process's resident memory in bytes, or 0 when unknown. */
final class ResidentMemory {

    private static final Path STATUS = Path.of("/proc/self/status");

    private ResidentMemory() {}

    static long bytes() {
        // On Linux the kernel's own figure: JavaCPP's would load its native library into the app at start-up for it.
        if (Files.isReadable(STATUS)) {
            try {
                for (String line : Files.readAllLines(STATUS)) {
                    if (line.startsWith("VmRSS:")) {
                        return Long.parseLong(line.replaceAll("\\D", "")) << 10;
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // fall through to JavaCPP's figure
            }
        }
        return Pointer.physicalBytes();
    }
}
