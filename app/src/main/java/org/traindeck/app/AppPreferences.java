package org.traindeck.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;

/** What TrainDeck remembers between launches: window size, the last folder, recent files and the theme. */
public final class AppPreferences {

    private static final int MAX_RECENT = 8;
    private final Preferences node;

    public AppPreferences(Preferences node) {
        this.node = node;
    }

    /** The user's preferences node, or another one named by the system property traindeck.prefs (tests). */
    public static AppPreferences user() {
        String name = System.getProperty("traindeck.prefs", "org/traindeck/app");
        return new AppPreferences(Preferences.userRoot().node(name));
    }

    public double[] windowBounds() {
        return new double[] {node.getDouble("x", Double.NaN), node.getDouble("y", Double.NaN),
                node.getDouble("width", 1360), node.getDouble("height", 860)};
    }

    public void windowBounds(double x, double y, double width, double height) {
        node.putDouble("x", x);
        node.putDouble("y", y);
        node.putDouble("width", width);
        node.putDouble("height", height);
    }

    public Path lastFolder() {
        String f = node.get("lastFolder", null);
        return f == null ? null : Path.of(f);
    }

    public void lastFolder(Path folder) {
        if (folder != null) {
            node.put("lastFolder", folder.toAbsolutePath().toString());
        }
    }

    public List<Path> recentFiles() {
        List<Path> out = new ArrayList<>();
        for (String line : node.get("recent", "").split("\n")) {
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
        node.put("recent", String.join("\n", list.stream().map(Path::toString).toList()));
    }

    /** Where the named split pane's divider was left, as a fraction of its width or height. */
    public double divider(String split, double otherwise) {
        double d = node.getDouble("divider." + split, otherwise);
        return d > 0 && d < 1 ? d : otherwise;
    }

    public void saveDivider(String split, double position) {
        node.putDouble("divider." + split, position);
    }

    public boolean dark() {
        return node.getBoolean("dark", false);
    }

    public void dark(boolean dark) {
        node.putBoolean("dark", dark);
    }

    public void flush() {
        try {
            node.flush();
        } catch (BackingStoreException e) {
            // preferences are a convenience: losing them is not worth an error
        }
    }
}
