package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javafx.application.Platform;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.ValidationResult;

/**
 * The config being edited: its text, its file (null until saved), whether it has unsaved changes, and the engine's
 * verdict on it. Validation runs off the FX thread (it checks files on disk), 250 ms after the last change, and only
 * the verdict for the current text is kept.
 */
public final class ConfigDocument {

    private final StringProperty text = new SimpleStringProperty("");
    private final ObjectProperty<Path> file = new SimpleObjectProperty<>();
    private final BooleanProperty dirty = new SimpleBooleanProperty();
    /** The text as loaded or last saved: the document is dirty while its text differs, whatever edits led there. */
    private String clean = "";

    private final ObjectProperty<ValidationResult> validation = new SimpleObjectProperty<>();
    private final BooleanProperty validating = new SimpleBooleanProperty();
    private final Path defaultFolder;
    private final ScheduledExecutorService validator = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "traindeck-validate");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong generation = new AtomicLong();
    private ScheduledFuture<?> pending;
    private boolean loading;

    /** @param defaultFolder where relative paths of an unsaved config point (the sample configs' folder) */
    public ConfigDocument(Path defaultFolder) {
        this.defaultFolder = defaultFolder.toAbsolutePath().normalize();
        text.addListener((o, a, b) -> {
            if (!loading) {
                dirty.set(!clean.equals(b));
            }
            scheduleValidation(250);
        });
    }

    public StringProperty textProperty() {
        return text;
    }

    public String text() {
        return text.get();
    }

    public ObjectProperty<Path> fileProperty() {
        return file;
    }

    public ReadOnlyBooleanProperty dirtyProperty() {
        return dirty;
    }

    public boolean isDirty() {
        return dirty.get();
    }

    public ObjectProperty<ValidationResult> validationProperty() {
        return validation;
    }

    public BooleanProperty validatingProperty() {
        return validating;
    }

    /** The folder relative paths are resolved against: the file's, or the default. */
    public Path baseDir() {
        Path f = file.get();
        return f == null ? defaultFolder : f.toAbsolutePath().getParent();
    }

    /** Replaces the text as loaded (not an edit): no unsaved changes afterwards. */
    public void load(String content, Path from) {
        loading = true;
        try {
            file.set(from);
            text.set(content);
            clean = content;
            dirty.set(false);
        } finally {
            loading = false;
        }
        scheduleValidation(0);
    }

    /**
     * Reads a run config's text (any thread: it does file I/O). A file that cannot be one (an image, a README, a huge
     * file) is refused with what it is; {@link #load} then shows what was read.
     */
    public static String read(Path path) throws IOException {
        if (Files.size(path) > Configs.maxConfigBytes()) {
            throw new IOException(path.getFileName() + " is " + Files.size(path) / (1 << 20)
                    + " MB: a run config is at most " + Configs.maxConfigBytes() / 1024 + " kB, so this is not one");
        }
        String content;
        try {
            content = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(Files.readAllBytes(path)))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IOException(path.getFileName()
                    + " is not text (an image or another binary file?): a run config is a JSON file");
        }
        if (!content.stripLeading().startsWith("{")) {
            throw new IOException(
                    path.getFileName() + " is not a run config: a run config is a JSON object, starting with {");
        }
        return content;
    }

    /**
     * What saving to {@code target} writes: the text, its relative paths rewritten to point at the same files from
     * the target's folder when that is another folder. The document itself is unchanged until {@link #saved}.
     */
    public Save prepareSave(Path target) {
        Path absolute = target.toAbsolutePath();
        return new Save(absolute, text.get(), rebase(text.get(), baseDir(), absolute.getParent()));
    }

    /**
     * A config's text on its way to a file.
     *
     * @param source the document's text when the save was asked for
     * @param text   what is written: the source with its relative paths rebased to the target's folder
     */
    public record Save(Path target, String source, String text) {

        /** Writes atomically (a temporary file in the same folder, then a rename): any thread, it does file I/O. */
        public void write() throws IOException {
            Path temp = target.resolveSibling("." + target.getFileName() + ".saving");
            Files.writeString(temp, text, StandardCharsets.UTF_8);
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temp);
            }
        }
    }

    /**
     * Marks a written save: the document is now that file, and has no unsaved changes unless it was edited while the
     * file was written (those edits stay, and stay unsaved).
     */
    public void saved(Save save) {
        boolean folderChanged = file.get() == null || !save.target().getParent().equals(baseDir());
        boolean editedMeanwhile = !text.get().equals(save.source());
        if (!editedMeanwhile && !save.text().equals(save.source())) {
            loading = true;
            try {
                text.set(save.text()); // the rebased paths, as written
            } finally {
                loading = false;
            }
        }
        file.set(save.target());
        // edited while it was written: the file holds what the save started from, so undoing those edits is clean
        clean = editedMeanwhile ? save.source() : save.text();
        dirty.set(editedMeanwhile);
        if (folderChanged) {
            scheduleValidation(0);
        }
    }

    /** The config's relative paths (output folder, data files), rewritten from {@code from} to {@code to}. */
    static String rebase(String json, Path from, Path to) {
        if (from == null || to == null || from.equals(to)) {
            return json;
        }
        ObjectNode root;
        try {
            root = JsonTree.parse(json);
        } catch (RuntimeException e) {
            return json; // not valid JSON yet: saved as typed, and validation says what is wrong
        }
        boolean changed = rebaseAt(root, "outputDir", from, to);
        changed |= rebaseData(root.get("data"), from, to);
        JsonNode stages = root.get("stages");
        if (stages != null && stages.isArray()) {
            for (JsonNode stage : stages) {
                changed |= rebaseData(stage.get("data"), from, to);
            }
        }
        return changed ? JsonTree.write(root) : json;
    }

    private static boolean rebaseData(JsonNode data, Path from, Path to) {
        if (data == null || !data.isObject()) {
            return false;
        }
        boolean changed = false;
        for (String source : new String[] {"train", "validation", "test"}) {
            JsonNode s = data.get(source);
            if (s != null && s.isObject()) {
                changed |= rebaseAt((ObjectNode) s, "path", from, to);
            }
        }
        return changed;
    }

    private static boolean rebaseAt(ObjectNode node, String key, Path from, Path to) {
        JsonNode v = node.get(key);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            return false;
        }
        Path p = Path.of(v.asText());
        if (p.isAbsolute()) {
            return false;
        }
        Path absolute = from.resolve(p).normalize();
        String rebased;
        try {
            rebased = to.relativize(absolute).toString().replace('\\', '/');
        } catch (IllegalArgumentException e) {
            rebased = absolute.toString(); // another drive (Windows): only an absolute path can reach it
        }
        node.put(key, rebased.isEmpty() ? "." : rebased);
        return true;
    }

    private synchronized void scheduleValidation(long delayMillis) {
        long mine = generation.incrementAndGet();
        if (pending != null) {
            pending.cancel(false);
        }
        String snapshot = text.get();
        Path base = baseDir();
        validating.set(true);
        pending = validator.schedule(
                () -> {
                    ValidationResult result = Configs.parse(snapshot, base);
                    Platform.runLater(() -> {
                        if (generation.get() == mine) {
                            validation.set(result);
                            validating.set(false);
                        }
                    });
                },
                delayMillis,
                TimeUnit.MILLISECONDS);
    }

    public void shutdown() {
        validator.shutdownNow();
    }
}
