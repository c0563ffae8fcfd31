package org.traindeck.app;

import com.sun.jna.Platform;
import com.sun.jna.platform.unix.LibC;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Keeps GTK quiet where there is no desktop session bus (a bare X server, a container, a remote X session): GTK's file
 * picker saves its settings through dconf, which needs that bus, and prints a dconf-WARNING on the terminal for every
 * setting it fails to save. There GTK is given settings held in memory, which is all it could have anyway.
 */
final class QuietDesktop {

    static final String BACKEND = "GSETTINGS_BACKEND";

    private QuietDesktop() {}

    /** Sets GTK's settings backend to memory when there is no session bus to save them with (before GTK loads). */
    static void settingsInMemoryWithoutSessionBus() {
        if (Platform.isLinux() && needsMemorySettings(System.getenv())) {
            try {
                // the C environment: GTK reads it, not Java's copy
                LibC.INSTANCE.setenv(BACKEND, "memory", 0);
            } catch (LinkageError | RuntimeException e) {
                // no C library to ask (or JNA could not load): the warnings stay, nothing else changes
            }
        }
    }

    /** True when nothing chose a settings backend and no session bus is reachable, by address or by its socket. */
    static boolean needsMemorySettings(Map<String, String> env) {
        if (env.get(BACKEND) != null || env.get("DBUS_SESSION_BUS_ADDRESS") != null) {
            return false;
        }
        String runtime = env.get("XDG_RUNTIME_DIR");
        return runtime == null || !Files.exists(Path.of(runtime, "bus"));
    }
}
