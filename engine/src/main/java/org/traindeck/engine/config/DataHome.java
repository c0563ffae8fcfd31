package org.traindeck.engine.config;

import java.nio.file.Path;

/** TrainDeck's per-user data folder: {@code $XDG_DATA_HOME/traindeck}, else {@code ~/.local/share/traindeck}. */
public final class DataHome {

    private DataHome() {}

    public static Path folder() {
        String xdg = System.getenv("XDG_DATA_HOME");
        Path base = xdg != null && !xdg.isBlank()
                ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".local", "share");
        return base.resolve("traindeck");
    }
}
