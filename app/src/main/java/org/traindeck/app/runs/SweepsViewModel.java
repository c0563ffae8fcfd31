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
import org.traindeck.engine.api.sweeps.Sweep;

/**
 * The Sweeps view's state: the sweeps run in the open config's output folder (read by the task executor), the one
 * shown, and the parameter its metric is plotted against; and running a sweep file, checked first, through the run
 * controller.
 */
public final class SweepsViewModel {

    private final Engine engine;
    private final TaskExecutor tasks;
    private final RunController controller;
    private final ObjectProperty<Path> folder = new SimpleObjectProperty<>();
    private final ObservableList<Sweep> sweeps = FXCollections.observableArrayList();
    private final ObjectProperty<Sweep> shown = new SimpleObjectProperty<>();
    private final ObjectProperty<String> parameter = new SimpleObjectProperty<>();
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    /** The sweep to show after the next read (one just started). */
    private String keepShown;
    /** What the last sweep started here is, said while its trials run. */
    private String started = "";

    public SweepsViewModel(Engine engine, TaskExecutor tasks, RunController controller) {
        this.engine = engine;
        this.tasks = tasks;
        this.controller = controller;
        folder.addListener((o, a, b) -> refresh());
        shown.addListener((o, a, b) -> parameter.set(
                b == null || b.parameters().isEmpty() ? null : b.parameters().get(0)));
    }

    public ObjectProperty<Path> folderProperty() {
        return folder;
    }

    public ObservableList<Sweep> sweeps() {
        return sweeps;
    }

    /** The sweep on screen. */
    public ObjectProperty<Sweep> shownProperty() {
        return shown;
    }

    /** The parameter the metric is plotted against. */
    public ObjectProperty<String> parameterProperty() {
        return parameter;
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /**
     * Checks a sweep file and queues its trials (on the task executor), then runs them on the dashboard; the sweep
     * then shows here, its trials filling in as they end. A sweep that cannot run says why and starts nothing.
     */
    public void run(Path sweepFile) {
        message.set("Checking " + sweepFile.getFileName() + "…");
        tasks.execute(
                () -> engine.sweeps().prepare(sweepFile),
                sweep -> {
                    started = "Sweep " + sweep.name() + ": " + sweep.trials() + " trial(s)"
                            + (sweep.concurrent() > 1 ? ", " + sweep.concurrent() + " at once" : "") + ", queue "
                            + sweep.queueFile();
                    message.set(started);
                    keepShown = sweep.name();
                    if (sweep.outputDir().equals(folder.get())) {
                        refresh();
                    } else {
                        folder.set(sweep.outputDir());
                    }
                    if (controller.stateProperty().get() != RunController.State.IDLE) {
                        // another run began while the file was checked: the trials wait in the sweep's queue
                        started += ". Another run is in progress: Run sweep… again when it ends";
                        message.set(started);
                        return;
                    }
                    controller.runSweep(sweep);
                },
                e -> message.set("Cannot run " + sweepFile.getFileName() + ": " + problems(e)));
    }

    // an invalid sweep's message is its problems, a line each
    private static String problems(Throwable e) {
        return e.getMessage() == null
                ? e.toString()
                : String.join("; ", e.getMessage().lines().toList());
    }

    /** Reads the folder's sweeps again, keeping the one shown. */
    public void refresh() {
        Path dir = folder.get();
        if (dir == null) {
            sweeps.clear();
            return;
        }
        tasks.execute(
                () -> engine.sweeps().list(dir),
                list -> {
                    String keep = keepShown != null
                            ? keepShown
                            : shown.get() == null ? null : shown.get().name();
                    keepShown = null;
                    sweeps.setAll(list);
                    shown.set(list.stream()
                            .filter(s -> s.name().equals(keep))
                            .findFirst()
                            .orElse(list.isEmpty() ? null : list.get(0)));
                    message.set(
                            list.isEmpty()
                                    ? "No sweeps in " + dir
                                            + " yet: Run sweep… (or traindeck sweep SWEEP.json) runs one."
                                    : started);
                },
                e -> message.set("Could not read the sweeps in " + dir + ": " + e.getMessage()));
    }
}
