package org.traindeck.app;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * What TrainDeck remembers between launches: window size, dividers, the last folder, recent files and the theme. Kept
 * in a file of the app's own config folder ({@code $XDG_CONFIG_HOME/traindeck}, else {@code ~/.config/traindeck}), so
 * that the user's HOME decides where it goes, and removing that folder forgets it. Changes are written by a writer
 * thread, in order, never on the caller's (the FX) thread.
 */
public final class AppPreferences {

    private static final int MAX_RECENT = 8;
    static final String FILE = "preferences.properties";
    private final Path file;
    private final Properties values = new Properties();
    private final Executor writer;

    /** The preferences kept in {@code file}, read now if it is there (an unreadable one counts as none). */
    public AppPreferences(Path file) {
        this(file, serialWriter());
    }

    /** @param writer runs each write of the file, in the order given (tests pass one that runs them when told) */
    public AppPreferences(Path file, Executor writer) {
        this.file = file;
        this.writer = writer;
        if (Files.isRegularFile(file)) {
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                values.load(in);
            } catch (IOException | IllegalArgumentException e) {
                values.clear(); // preferences are a convenience: a damaged file starts them afresh
            }
        }
    }

    /** The user's preferences, in the config folder the environment names. */
    public static AppPreferences user() {
        return new AppPreferences(configFolder(System.getenv()).resolve(FILE));
    }

    /** {@code $XDG_CONFIG_HOME/traindeck} when set to an absolute path (the XDG rule), else {@code $HOME/.config/traindeck}. */
    public static Path configFolder(Map<String, String> env) {
        String xdg = env.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "traindeck");
        }
        String home = env.get("HOME");
        Path base = home != null && !home.isBlank() ? Path.of(home) : Path.of(System.getProperty("user.home"));
        return base.resolve(".config").resolve("traindeck");
    }

    /** The file the preferences are kept in. */
    public Path file() {
        return file;
    }

    private double number(String key, double otherwise) {
        String v = values.getProperty(key);
        if (v == null) {
            return otherwise;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    private void putNumber(String key, double value) {
        values.setProperty(key, Double.toString(value));
    }

    public double[] windowBounds() {
        return new double[] {
            number("x", Double.NaN), number("y", Double.NaN), number("width", 1360), number("height", 860)
        };
    }

    public void windowBounds(double x, double y, double width, double height) {
        putNumber("x", x);
        putNumber("y", y);
        putNumber("width", width);
        putNumber("height", height);
    }

    public boolean maximized() {
        return Boolean.parseBoolean(values.getProperty("maximized", "false"));
    }

    public void maximized(boolean maximized) {
        values.setProperty("maximized", Boolean.toString(maximized));
    }

    /** Where the named split pane's divider was left, as a fraction of its width or height. */
    public double divider(String split, double otherwise) {
        double d = number("divider." + split, otherwise);
        return d > 0 && d < 1 ? d : otherwise;
    }

    public void saveDivider(String split, double position) {
        putNumber("divider." + split, position);
    }

    public Path lastFolder() {
        String f = values.getProperty("lastFolder");
        return f == null ? null : Path.of(f);
    }

    public void lastFolder(Path folder) {
        if (folder != null) {
            values.setProperty("lastFolder", folder.toAbsolutePath().toString());
            flush();
        }
    }

    public List<Path> recentFiles() {
        List<Path> out = new ArrayList<>();
        for (String line : values.getProperty("recent", "").split("\n")) {
            if (!line.isBlank() && Files.exists(Path.of(line))) {
                out.add(Path.of(line));
            }
        }
        return out;
    }

    public void addRecent(Path file) {
        List<Path> list = new ArrayList<>(recentFiles());
        Path absolute = file.toAbsolutePath();
        list.remove(absolute);
        list.add(0, absolute);
        while (list.size() > MAX_RECENT) {
            list.remove(list.size() - 1);
        }
        values.setProperty(
                "recent", String.join("\n", list.stream().map(Path::toString).toList()));
        flush();
    }

    public boolean dark() {
        return Boolean.parseBoolean(values.getProperty("dark", "false"));
    }

    public void dark(boolean dark) {
        values.setProperty("dark", Boolean.toString(dark));
    }

    /**
     * One writer thread that ends when idle; not a daemon, so that the last write (on quit) finishes before the JVM
     * exits.
     */
    private static Executor serialWriter() {
        return new ThreadPoolExecutor(0, 1, 2, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "traindeck-preferences");
            t.setDaemon(false);
            return t;
        });
    }

    /** Hands the current values to the writer, which writes the file through a temporary one (a crash never leaves half). */
    public void flush() {
        Properties snapshot = new Properties();
        snapshot.putAll(values);
        writer.execute(() -> write(snapshot));
    }

    private void write(Properties snapshot) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(FILE + ".tmp");
            try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                snapshot.store(out, "TrainDeck preferences");
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // preferences are a convenience: losing them is not worth an error
        }
    }
}
