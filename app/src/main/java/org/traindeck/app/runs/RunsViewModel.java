package org.traindeck.app.runs;

import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
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
import org.traindeck.engine.api.TensorBoardRuns;
import org.traindeck.engine.api.library.ImportedRun;
import org.traindeck.engine.api.library.TagMapping;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.events.EngineEvent;

/**
 * The Runs view's state and commands: the runs of an output folder (read by the task executor), filtered by name and
 * status, and TensorBoard logs another tool wrote, opened read-only beside them with their tags read as TrainDeck's
 * metrics through an editable mapping; the selected runs overlaid on the charts, each in its own colour, and the
 * config keys they differ in.
 */
public final class RunsViewModel {

    /** Statuses to filter by, as the run library names them; "all" shows every run. */
    public static final List<String> STATUSES =
            List.of("all", "running", "finished", "incomplete", "stopped", "failed", "interrupted", ImportedRun.STATUS);

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
    /** TensorBoard logs opened, by their source; they stay listed whatever the folder. */
    private final Map<Path, ImportedRun> imported = new LinkedHashMap<>();

    private final ObjectProperty<TagMapping> mapping = new SimpleObjectProperty<>(TagMapping.DEFAULT);
    private List<RunSummary> folderRuns = List.of();
    private long selection;

    public RunsViewModel(Engine engine, TaskExecutor tasks, RunOverlays overlays) {
        this.engine = engine;
        this.tasks = tasks;
        this.overlays = overlays;
        nameFilter.addListener((o, a, b) -> filter());
        statusFilter.addListener((o, a, b) -> filter());
        folder.addListener((o, a, b) -> refresh());
        // the rows' figures follow the mapping; the view selects its rows again, which draws them again
        mapping.addListener((o, a, b) -> showRuns());
    }

    /** How the tags of imported TensorBoard logs are read as TrainDeck's metrics. */
    public ObjectProperty<TagMapping> mappingProperty() {
        return mapping;
    }

    /**
     * Reads the mapping's text ({@code TAG=METRIC} pairs over the defaults) and applies it to the imported runs;
     * text that is not a mapping is said under the list and changes nothing.
     */
    public void applyMapping(String text) {
        try {
            mapping.set(TagMapping.parse(text == null ? "" : text));
        } catch (IllegalArgumentException e) {
            message.set("Tag mapping not applied: " + e.getMessage());
        }
    }

    /**
     * Opens TensorBoard logs (an event file or a folder of them) in the background and lists them as a read-only
     * run; opening the same logs again reads them again (a writer may have added to them).
     */
    public void importTensorBoard(Path logs) {
        tasks.execute(
                () -> TensorBoardRuns.open(logs),
                run -> {
                    imported.put(run.source(), run);
                    showRuns();
                    message.set(describe(run));
                },
                e -> message.set("Could not open the TensorBoard logs: " + e.getMessage()));
    }

    private String describe(ImportedRun run) {
        String read = run.metrics(mapping.get()).entrySet().stream()
                .filter(e -> !e.getKey().equals(e.getValue()))
                .map(e -> e.getKey() + " as " + e.getValue())
                .collect(Collectors.joining(", "));
        return "Opened " + run.name() + " (TensorBoard logs, " + run.tags().size() + " tag(s)"
                + (read.isEmpty() ? "; no tag maps to a TrainDeck metric: edit the tag mapping" : "; " + read)
                + ")" + run.notes().stream().map(n -> "\n" + n).collect(Collectors.joining());
    }

    private void showRuns() {
        List<RunSummary> all = new ArrayList<>(folderRuns);
        imported.values().forEach(r -> all.add(TensorBoardRuns.summary(r, mapping.get())));
        runs.setAll(all);
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
            folderRuns = List.of();
            showRuns();
            message.set("");
            return;
        }
        tasks.execute(
                () -> engine.pastRuns().list(dir),
                list -> {
                    if (dir.equals(folder.get())) {
                        folderRuns = List.copyOf(list);
                        showRuns();
                        message.set(list.isEmpty() ? "No runs in " + dir + " yet." : list.size() + " run(s) in " + dir);
                    }
                },
                e -> {
                    message.set("Could not read the runs in " + dir + ": " + e.getMessage());
                });
    }

    /**
     * Overlays the selected runs' curves (imported logs' under the tag mapping) and compares the configs of the
     * TrainDeck runs among them; an empty selection takes the overlays away.
     */
    public void select(List<RunSummary> chosenRuns) {
        long mine = ++selection;
        List<RunSummary> chosen = List.copyOf(chosenRuns);
        if (chosen.isEmpty()) {
            overlays.clear();
            differences.set(null);
            return;
        }
        TagMapping tags = mapping.get();
        Map<Path, ImportedRun> logs = Map.copyOf(imported);
        tasks.execute(
                () -> {
                    List<List<EngineEvent>> histories = new ArrayList<>();
                    List<Path> ours = new ArrayList<>();
                    for (RunSummary r : chosen) {
                        ImportedRun log = logs.get(r.folder());
                        if (log != null) {
                            histories.add(TensorBoardRuns.history(log, tags));
                        } else {
                            histories.add(engine.pastRuns().open(r.folder()).history());
                            ours.add(r.folder());
                        }
                    }
                    // the histories are read once, for the charts; the comparison needs only the configs
                    return new Selected(
                            ours.size() < 2 ? null : engine.pastRuns().configDifferences(ours), histories);
                },
                s -> {
                    if (mine != selection) {
                        return; // the user has chosen again meanwhile
                    }
                    overlays.clear();
                    for (int i = 0; i < chosen.size(); i++) {
                        overlays.show(label(chosen.get(i)), s.histories().get(i), COLORS[i % COLORS.length]);
                    }
                    differences.set(s.differences());
                    if (s.differences() == null && chosen.size() > 1) {
                        message.set("TensorBoard logs have no config: select two or more TrainDeck runs to see how"
                                + " their configs differ.");
                    }
                },
                e -> message.set("Could not read the selected runs: " + e.getMessage()));
    }

    /** What a run is called in the table and the charts' legends: its folder, or the imported logs' name. */
    public static String label(RunSummary run) {
        return run.status().equals(ImportedRun.STATUS)
                ? run.name() + " (TensorBoard)"
                : run.folder().getFileName().toString();
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
