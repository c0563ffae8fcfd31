package org.traindeck.app.runs;

import java.nio.file.Path;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.traindeck.app.run.RunController;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.config.RunConfig;

/**
 * The Queue view's state and commands: the queue of the open config's output folder (its queue.json, read and
 * written by the task executor), adding the open config to it, and running it through the run controller.
 */
public final class QueueViewModel {

    private final Engine engine;
    private final TaskExecutor tasks;
    private final RunController controller;
    private final ObjectProperty<Path> folder = new SimpleObjectProperty<>();
    private final ObjectProperty<RunConfig> config = new SimpleObjectProperty<>();
    private final ObservableList<QueueEntry> entries = FXCollections.observableArrayList();
    private final ObservableList<QueueEntry> readOnlyEntries = FXCollections.unmodifiableObservableList(entries);
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");

    public QueueViewModel(Engine engine, TaskExecutor tasks, RunController controller) {
        this.engine = engine;
        this.tasks = tasks;
        this.controller = controller;
        folder.addListener((o, a, b) -> refresh());
        controller.onQueueChanged(this::refresh);
    }

    /** The output folder whose queue is shown. */
    public ObjectProperty<Path> folderProperty() {
        return folder;
    }

    /** The open config, when it is valid (what Add queues). */
    public ObjectProperty<RunConfig> configProperty() {
        return config;
    }

    public ObservableList<QueueEntry> entries() {
        return readOnlyEntries;
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public void refresh() {
        refresh("");
    }

    /** Reads the queue again; {@code done} (what was just done, or "") leads the message. */
    private void refresh(String done) {
        Path dir = folder.get();
        if (dir == null) {
            entries.clear();
            return;
        }
        tasks.execute(
                () -> engine.queue().entries(dir),
                list -> {
                    if (dir.equals(folder.get())) {
                        entries.setAll(list);
                        long waiting =
                                list.stream().filter(e -> !e.status().isDone()).count();
                        message.set(done
                                + (list.isEmpty()
                                        ? "The queue is empty: Add puts the open config in it."
                                        : waiting + " of " + list.size() + " queued run(s) waiting, in "
                                                + dir.resolve("queue.json")));
                    }
                },
                e -> message.set("Could not read the queue in " + dir + ": " + e.getMessage()));
    }

    /** Queues a copy of the open config as it is now. */
    public void addOpenConfig() {
        RunConfig c = config.get();
        if (c == null) {
            message.set("The open config is not valid: fix it before queueing it.");
            return;
        }
        tasks.execute(
                () -> engine.queue().add(c),
                entry -> {
                    message.set("Queued #" + entry.id() + " " + entry.label() + ".");
                    refresh();
                },
                e -> message.set("Could not queue " + c.name() + ": " + e.getMessage()));
    }

    /** Takes an entry out of the queue (the engine refuses the one running). */
    public void remove(QueueEntry entry) {
        Path dir = folder.get();
        if (dir == null || entry == null) {
            return;
        }
        tasks.execute(
                () -> engine.queue().remove(dir, entry.id()),
                removed -> refresh("Removed #" + removed.id() + " " + removed.label()
                        + (removed.runDir() == null ? ". " : " (its run folder stays). ")),
                e -> message.set("Could not remove #" + entry.id() + ": " + e.getMessage()));
    }

    /** Moves a waiting entry {@code by} places (negative: earlier, so it runs sooner). */
    public void move(QueueEntry entry, int by) {
        Path dir = folder.get();
        int at = entries.indexOf(entry);
        if (dir == null || at < 0) {
            return;
        }
        tasks.execute(
                () -> {
                    engine.queue().move(dir, entry.id(), Math.max(0, at + by));
                    return entry;
                },
                moved -> refresh(),
                e -> message.set("Could not move #" + entry.id() + ": " + e.getMessage()));
    }

    /** Runs what is waiting, one run after another, on the dashboard. */
    public void run() {
        Path dir = folder.get();
        if (dir != null) {
            controller.runQueue(dir);
        }
    }
}
