package org.traindeck.app.runs;

import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.sweep.SweepBoard;

import java.nio.file.Path;

/**
 * The Sweeps view's state: the sweeps run in the open config's output folder (read by the task executor), the one
 * shown, and the parameter its metric is plotted against.
 */
public final class SweepsViewModel {

    private final Engine engine;
    private final TaskExecutor tasks;
    private final ObjectProperty<Path> folder = new SimpleObjectProperty<>();
    private final ObservableList<SweepBoard.Sweep> sweeps = FXCollections.observableArrayList();
    private final ObjectProperty<SweepBoard.Sweep> shown = new SimpleObjectProperty<>();
    private final ObjectProperty<String> parameter = new SimpleObjectProperty<>();
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");

    public SweepsViewModel(Engine engine, TaskExecutor tasks) {
        this.engine = engine;
        this.tasks = tasks;
        folder.addListener((o, a, b) -> refresh());
        shown.addListener((o, a, b) -> parameter.set(b == null || b.parameters().isEmpty() ? null : b.parameters().get(0)));
    }

    public ObjectProperty<Path> folderProperty() {
        return folder;
    }

    public ObservableList<SweepBoard.Sweep> sweeps() {
        return sweeps;
    }

    /** The sweep on screen. */
    public ObjectProperty<SweepBoard.Sweep> shownProperty() {
        return shown;
    }

    /** The parameter the metric is plotted against. */
    public ObjectProperty<String> parameterProperty() {
        return parameter;
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** Reads the folder's sweeps again, keeping the one shown. */
    public void refresh() {
        Path dir = folder.get();
        if (dir == null) {
            sweeps.clear();
            return;
        }
        tasks.execute(() -> engine.sweeps(dir), list -> {
            String keep = shown.get() == null ? null : shown.get().name();
            sweeps.setAll(list);
            shown.set(list.stream().filter(s -> s.name().equals(keep)).findFirst().orElse(list.isEmpty() ? null : list.get(0)));
            message.set(list.isEmpty() ? "No sweeps in " + dir + " yet: traindeck sweep SWEEP.json runs one." : "");
        }, e -> message.set("Could not read the sweeps in " + dir + ": " + e.getMessage()));
    }
}
