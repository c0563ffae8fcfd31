package org.traindeck.engine.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * TrainDeck's per-user data folder: {@code $XDG_DATA_HOME/traindeck} when that is an absolute path (the XDG rule),
 * else {@code $HOME/.local/share/traindeck}; the JVM's {@code user.home} only where HOME is not set (Java takes it
 * from the password database, so it ignores a HOME pointed elsewhere).
 */
public final class DataHome {

    private DataHome() {}

    public static Path folder() {
        return folder(System.getenv());
    }

    public static Path folder(Map<String, String> env) {
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "traindeck");
        }
        String home = env.get("HOME");
        Path base = home != null && !home.isBlank() ? Path.of(home) : Path.of(System.getProperty("user.home"));
        return base.resolve(".local").resolve("share").resolve("traindeck");
    }
}
