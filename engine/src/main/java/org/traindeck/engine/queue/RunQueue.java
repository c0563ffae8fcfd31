package org.traindeck.engine.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.traindeck.engine.api.queue.QueueEntry;

/**
 * A queue of runs kept in a JSON file in the output folder, so that it outlives the process that runs it. Every
 * change is a locked read-modify-write (another process may be adding to the queue while it runs), written
 * atomically (a temporary file, then a rename): a crash leaves the old or the new queue, never half of one. A file
 * that is not a queue is refused and left as it is.
 */
public final class RunQueue {

    public static final String DEFAULT_FILE = "queue.json";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final int VERSION = 1;

    private final Path file;
    private final List<QueueEntry> entries;
    /** What the queue is for, when it runs a sweep (its name, metric, goal and parameters); null otherwise. */
    private JsonNode sweep;

    private RunQueue(Path file, List<QueueEntry> entries) {
        this.file = file;
        this.entries = entries;
    }

    /** The queue in {@code file}, or an empty one when there is no such file yet. */
    public static RunQueue open(Path file) throws IOException {
        if (!Files.exists(file)) {
            return new RunQueue(file, new ArrayList<>());
        }
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IOException(
                    file + " is not a TrainDeck queue ("
                            + e.getMessage().lines().findFirst().orElse("") + "); it was left as it is",
                    e);
        }
        if (root == null
                || !root.path("entries").isArray()
                || root.path("version").asInt() != VERSION) {
            throw new IOException(file + " is not a TrainDeck queue (version " + VERSION
                    + " with \"entries\"); it was left as it is");
        }
        List<QueueEntry> entries = new ArrayList<>();
        for (JsonNode e : root.get("entries")) {
            try {
                entries.add(new QueueEntry(
                        e.get("id").asInt(),
                        e.get("label").asText(),
                        text(e, "source"),
                        JSON.writeValueAsString(e.get("config")),
                        QueueEntry.Status.valueOf(e.get("status").asText().toUpperCase(Locale.ROOT)),
                        text(e, "runDir") == null ? null : Path.of(text(e, "runDir")),
                        text(e, "message")));
            } catch (RuntimeException bad) {
                throw new IOException(
                        file + ": entry " + entries.size() + " is damaged (" + bad.getMessage()
                                + "); the queue was left as it is",
                        bad);
            }
        }
        RunQueue queue = new RunQueue(file, entries);
        queue.sweep = root.get("sweep");
        return queue;
    }

    /** The sweep this queue runs, as its file describes it (name, metric, goal, parameters); null for a plain queue. */
    public JsonNode sweep() {
        return sweep == null ? null : sweep.deepCopy();
    }

    /** Records which sweep the queue in {@code file} runs (creating the file). */
    public static void describeSweep(Path file, JsonNode description) throws IOException {
        try (QueueLock ignored = QueueLock.forWriting(file)) {
            RunQueue queue = open(file);
            queue.sweep = description.deepCopy();
            queue.save();
        }
    }

    private static String text(JsonNode e, String key) {
        JsonNode v = e.get(key);
        return v == null || v.isNull() ? null : v.asText();
    }

    public Path file() {
        return file;
    }

    public List<QueueEntry> entries() {
        return List.copyOf(entries);
    }

    /** Appends a run to the queue in {@code file} (creating it). */
    public static QueueEntry add(Path file, String label, String source, String configJson) throws IOException {
        try (QueueLock ignored = QueueLock.forWriting(file)) {
            RunQueue queue = open(file);
            int id = queue.entries.stream().mapToInt(QueueEntry::id).max().orElse(0) + 1;
            QueueEntry entry = new QueueEntry(id, label, source, configJson, QueueEntry.Status.PENDING, null, null);
            queue.entries.add(entry);
            queue.save();
            return entry;
        }
    }

    /** Replaces the entry with the same id in the queue in {@code file}. */
    public static void update(Path file, QueueEntry entry) throws IOException {
        try (QueueLock ignored = QueueLock.forWriting(file)) {
            RunQueue queue = open(file);
            for (int i = 0; i < queue.entries.size(); i++) {
                if (queue.entries.get(i).id() == entry.id()) {
                    queue.entries.set(i, entry);
                    queue.save();
                    return;
                }
            }
            throw new IOException("entry " + entry.id() + " is no longer in " + file);
        }
    }

    /**
     * Takes an entry out of the queue in {@code file}: a waiting one is not run, a finished one leaves the list (its
     * run folder stays). The one running now is refused: stop the queue first.
     */
    public static QueueEntry remove(Path file, int id) throws IOException {
        try (QueueLock ignored = QueueLock.forWriting(file)) {
            RunQueue queue = open(file);
            QueueEntry entry = queue.find(id);
            if (entry.status() == QueueEntry.Status.RUNNING) {
                throw new IOException(
                        "#" + id + " " + entry.label() + " is running: stop the queue first, then remove it");
            }
            queue.entries.remove(entry);
            queue.save();
            return entry;
        }
    }

    /**
     * Moves a waiting (or stopped) entry to {@code position} (0 = first) of the queue in {@code file}, a position past
     * either end meaning that end; the queue runs waiting entries in list order.
     */
    public static void move(Path file, int id, int position) throws IOException {
        try (QueueLock ignored = QueueLock.forWriting(file)) {
            RunQueue queue = open(file);
            QueueEntry entry = queue.find(id);
            if (entry.status() != QueueEntry.Status.PENDING && entry.status() != QueueEntry.Status.STOPPED) {
                throw new IOException("#" + id + " " + entry.label() + " is "
                        + entry.status().name().toLowerCase(Locale.ROOT) + ": only waiting runs can be moved");
            }
            queue.entries.remove(entry);
            queue.entries.add(Math.max(0, Math.min(position, queue.entries.size())), entry);
            queue.save();
        }
    }

    private QueueEntry find(int id) throws IOException {
        return entries.stream()
                .filter(e -> e.id() == id)
                .findFirst()
                .orElseThrow(() -> new IOException(
                        "there is no #" + id + " in " + file + " (traindeck queue list shows its entries)"));
    }

    private void save() throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", VERSION);
        if (sweep != null) {
            root.set("sweep", sweep);
        }
        ArrayNode list = root.putArray("entries");
        for (QueueEntry e : entries) {
            ObjectNode n = list.addObject();
            n.put("id", e.id());
            n.put("label", e.label());
            n.put("source", e.source());
            n.put("status", e.status().name().toLowerCase(Locale.ROOT));
            n.put("runDir", e.runDir() == null ? null : e.runDir().toString());
            n.put("message", e.message());
            n.set("config", JSON.readTree(e.config()));
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path temp = file.resolveSibling("." + file.getFileName() + ".saving");
        Files.writeString(temp, JSON.writeValueAsString(root), StandardCharsets.UTF_8);
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
