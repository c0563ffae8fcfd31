package org.traindeck.app.runs;

import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;
import org.traindeck.app.run.RunOverlays;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.library.RunSummary;

/**
 * The Runs view's state and commands: the runs of an output folder (read by the task executor), filtered by name and
 * status; the selected runs overlaid on the charts, each in its own colour, and the config keys they differ in.
 */
public final class RunsViewModel {

    /** Statuses to filter by, as the run library names them; "all" shows every run. */
    public static final List<String> STATUSES =
            List.of("all", "running", "finished", "incomplete", "stopped", "failed", "interrupted");

    private static final Color[] COLORS = {
        new Color(0x9467bd),
        new Color(0x8c564b),
        new Color(0xe377c2),
        new Color(0x17becf),
        new Color(0xbcbd22),
        new Color(0x7f7f7f)
    };

    private final Engine engine;
    private final TaskExecutor tasks;
    private final RunOverlays overlays;
    private final ObjectProperty<Path> folder = new SimpleObjectProperty<>();
    private final ObservableList<RunSummary> runs = FXCollections.observableArrayList();
    private final FilteredList<RunSummary> shown = new FilteredList<>(runs);
    private final StringProperty nameFilter = new SimpleStringProperty("");
    private final StringProperty statusFilter = new SimpleStringProperty("all");
    private final ReadOnlyObjectWrapper<Map<String, List<String>>> differences = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private long selection;

    public RunsViewModel(Engine engine, TaskExecutor tasks, RunOverlays overlays) {
        this.engine = engine;
        this.tasks = tasks;
        this.overlays = overlays;
        nameFilter.addListener((o, a, b) -> filter());
        statusFilter.addListener((o, a, b) -> filter());
        folder.addListener((o, a, b) -> refresh());
    }

    /** The output folder whose runs are listed (the open config's). */
    public ObjectProperty<Path> folderProperty() {
        return folder;
    }

    /** The runs that pass the filters, oldest first. */
    public ObservableList<RunSummary> shownRuns() {
        return shown;
    }

    public StringProperty nameFilterProperty() {
        return nameFilter;
    }

    public StringProperty statusFilterProperty() {
        return statusFilter;
    }

    /** The config keys the selected runs differ in (one value per run), or null when fewer than two are selected. */
    public ReadOnlyObjectProperty<Map<String, List<String>>> differencesProperty() {
        return differences.getReadOnlyProperty();
    }

    /** What the view says under the list: how many runs, or what went wrong. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** Reads the folder's runs again (after a run ends, or when asked). */
    public void refresh() {
        Path dir = folder.get();
        if (dir == null) {
            runs.clear();
            message.set("");
            return;
        }
        tasks.execute(
                () -> engine.runs(dir),
                list -> {
                    if (dir.equals(folder.get())) {
                        runs.setAll(list);
                        message.set(list.isEmpty() ? "No runs in " + dir + " yet." : list.size() + " run(s) in " + dir);
                    }
                },
                e -> {
                    message.set("Could not read the runs in " + dir + ": " + e.getMessage());
                });
    }

    /** Overlays the selected runs' curves and compares their configs; an empty selection takes the overlays away. */
    public void select(List<RunSummary> selected) {
        long mine = ++selection;
        List<RunSummary> chosen = List.copyOf(selected);
        if (chosen.isEmpty()) {
            overlays.clear();
            differences.set(null);
            return;
        }
        tasks.execute(
                () -> {
                    List<List<EngineEvent>> histories = new ArrayList<>();
                    for (RunSummary r : chosen) {
                        histories.add(engine.open(r.folder()).history());
                    }
                    // the histories are read once, for the charts; the comparison needs only the configs
                    return new Selected(
                            chosen.size() < 2
                                    ? null
                                    : engine.configDifferences(chosen.stream()
                                            .map(RunSummary::folder)
                                            .toList()),
                            histories);
                },
                s -> {
                    if (mine != selection) {
                        return; // the user has chosen again meanwhile
                    }
                    overlays.clear();
                    for (int i = 0; i < chosen.size(); i++) {
                        overlays.show(
                                chosen.get(i).folder().getFileName().toString(),
                                s.histories().get(i),
                                COLORS[i % COLORS.length]);
                    }
                    differences.set(s.differences());
                },
                e -> message.set("Could not read the selected runs: " + e.getMessage()));
    }

    private record Selected(Map<String, List<String>> differences, List<List<EngineEvent>> histories) {}

    private void filter() {
        String name = nameFilter.get() == null ? "" : nameFilter.get().strip().toLowerCase(Locale.ROOT);
        String status = statusFilter.get();
        shown.setPredicate(r -> (name.isEmpty()
                        || r.name().toLowerCase(Locale.ROOT).contains(name)
                        || r.folder()
                                .getFileName()
                                .toString()
                                .toLowerCase(Locale.ROOT)
                                .contains(name))
                && (status == null || status.equals("all") || status.equals(r.status())));
    }
}
