package org.traindeck.app.runs;

import static org.traindeck.app.runs.RunsTableCells.column;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.collections.transformation.SortedList;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.traindeck.app.runs.RunsTableCells.Energy;
import org.traindeck.app.runs.RunsTableCells.Figure;
import org.traindeck.app.runs.RunsTableCells.When;
import org.traindeck.app.ui.WholeColumns;
import org.traindeck.engine.api.library.TagMapping;
import org.traindeck.engine.api.runs.RunSummary;

/**
 * The runs of the open config's output folder: a sortable table filtered by name and status. Selecting runs draws
 * their curves on the charts and lists the config keys they differ in.
 */
public final class RunsView extends VBox {

    private final TableView<RunSummary> table = new TableView<>();
    private final Label differences = new Label();

    public RunsView(RunsViewModel model) {
        this(model, runDir -> {});
    }

    /** @param evaluator what the Evaluate button does with the selected run's folder */
    public RunsView(RunsViewModel model, Consumer<Path> evaluator) {
        this(model, evaluator, () -> null);
    }

    /**
     * @param evaluator what the Evaluate button does with the selected run's folder
     * @param logsChooser asks for TensorBoard logs to open (a folder of event files), null when cancelled
     */
    public RunsView(RunsViewModel model, Consumer<Path> evaluator, Supplier<Path> logsChooser) {
        super(6);
        setId("runs-view");
        setPadding(new Insets(8));
        Button logs = logsButton(model, logsChooser);
        HBox filters = filters(model, evaluator, logs);
        showRuns(model);
        getChildren().addAll(filters, message(model), mappingRow(model, logs), tableAndDifferences(model));
    }

    private static Button logsButton(RunsViewModel model, Supplier<Path> logsChooser) {
        Button logs = new Button("Open TensorBoard logs…");
        logs.setId("runs-open-tensorboard");
        logs.setTooltip(new Tooltip("Another tool's run (PyTorch's SummaryWriter, TensorFlow): a folder of "
                + "events.out.tfevents.* files, listed read-only and overlaid on the charts"));
        logs.setOnAction(e -> {
            Path chosen = logsChooser.get();
            if (chosen != null) {
                model.importTensorBoard(chosen);
            }
        });
        return logs;
    }

    /** The name and status filters, Refresh and Evaluate. */
    private HBox filters(RunsViewModel model, Consumer<Path> evaluator, Button logs) {
        TextField name = new TextField();
        name.setId("runs-filter");
        name.setPromptText("filter by name");
        name.textProperty().bindBidirectional(model.nameFilterProperty());
        HBox.setHgrow(name, Priority.ALWAYS);
        ComboBox<String> status = new ComboBox<>();
        status.setId("runs-status");
        status.getItems().setAll(RunsViewModel.STATUSES);
        status.valueProperty().bindBidirectional(model.statusFilterProperty());
        Button refresh = new Button("Refresh");
        refresh.setId("runs-refresh");
        refresh.setOnAction(e -> model.refresh());
        Button evaluate = new Button("Evaluate");
        evaluate.setId("runs-evaluate");
        evaluate.setTooltip(new Tooltip("The selected run's figures on its test data (else its validation data): "
                + "confusion matrix, per-class table; written to its evaluation.json"));
        evaluate.disableProperty()
                .bind(Bindings.size(table.getSelectionModel().getSelectedItems())
                        .isNotEqualTo(1));
        evaluate.setOnAction(e ->
                evaluator.accept(table.getSelectionModel().getSelectedItem().folder()));
        // the buttons keep their words; the name filter gives way. Imported logs have their own row, with their mapping
        for (Button b : List.of(refresh, evaluate, logs)) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }
        HBox filters = new HBox(6, name, status, refresh, evaluate);
        filters.setAlignment(Pos.CENTER_LEFT);

        return filters;
    }

    /** The table's columns, sorting and selection, over the model's shown runs. */
    private void showRuns(RunsViewModel model) {
        table.setId("runs-table");
        table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
        // every column as wide as its title and figures: a narrow pane scrolls the table sideways
        table.setColumnResizePolicy(TableView.UNCONSTRAINED_RESIZE_POLICY);
        table.setPlaceholder(new Label("No runs in this output folder yet."));
        TableColumn<RunSummary, String> run = column("Run", RunsViewModel::label);
        run.setPrefWidth(170);
        TableColumn<RunSummary, String> metric = column("Metric", r -> r.monitor() == null ? "" : r.monitor());
        TableColumn<RunSummary, Figure> best = column("Best", r -> new Figure(r.best(), r.monitor()));
        TableColumn<RunSummary, Figure> last = column("Last", r -> new Figure(r.last(), r.monitor()));
        table.getColumns()
                .setAll(List.of(
                        run,
                        column("Status", RunSummary::status),
                        column("Steps", RunSummary::steps),
                        metric,
                        best,
                        last,
                        column("Energy", Energy::new),
                        column("Started", r -> new When(r.startedMillis()))));
        WholeColumns.keep(
                table,
                c -> c == run
                        ? null
                        : r -> String.valueOf(c.getCellObservableValue(r).getValue()));
        // Best and Last are named by the metric they hold; runs of different tasks (a loss, an IoU) get a Metric column
        model.shownRuns()
                .addListener((ListChangeListener<RunSummary>) c -> nameFigureColumns(model, metric, best, last));
        nameFigureColumns(model, metric, best, last);
        SortedList<RunSummary> sorted = new SortedList<>(model.shownRuns());
        sorted.comparatorProperty().bind(table.comparatorProperty());
        table.setItems(sorted);
        table.getSelectionModel().getSelectedItems().addListener((ListChangeListener<RunSummary>)
                c -> model.select(List.copyOf(table.getSelectionModel().getSelectedItems())));
    }

    private static Label message(RunsViewModel model) {
        Label message = new Label();
        message.setId("runs-message");
        message.setWrapText(true);
        message.textProperty().bind(model.messageProperty());
        message.getStyleClass().add("device-figures");
        return message;
    }

    /** The table above the selected runs' config differences, each in its own pane. */
    private SplitPane tableAndDifferences(RunsViewModel model) {
        differences.setId("runs-differences");
        differences.setWrapText(true);
        model.differencesProperty().addListener((o, a, b) -> differences.setText(describe(b)));
        differences.setText(describe(null));
        // the diff has a pane of its own under the table: however long, it scrolls there and never covers a row
        ScrollPane diffScroll = new ScrollPane(differences);
        diffScroll.setId("runs-differences-scroll");
        diffScroll.setFitToWidth(true);
        VBox.setVgrow(diffScroll, Priority.ALWAYS);
        VBox diffPane = new VBox(4, new Label("How the selected runs' configs differ"), diffScroll);
        diffPane.setMinHeight(0);
        SplitPane tableAndDiff = new SplitPane(table, diffPane);
        tableAndDiff.setId("runs-split");
        tableAndDiff.setOrientation(Orientation.VERTICAL);
        tableAndDiff.setDividerPositions(0.68);
        VBox.setVgrow(tableAndDiff, Priority.ALWAYS);
        return tableAndDiff;
    }

    private static void nameFigureColumns(
            RunsViewModel model,
            TableColumn<RunSummary, ?> metric,
            TableColumn<RunSummary, ?> best,
            TableColumn<RunSummary, ?> last) {
        List<String> monitors = model.shownRuns().stream()
                .map(RunSummary::monitor)
                .filter(m -> m != null && !m.isBlank())
                .distinct()
                .toList();
        boolean one = monitors.size() == 1;
        best.setText(one ? "Best " + monitors.get(0) : "Best");
        last.setText(one ? "Last " + monitors.get(0) : "Last");
        metric.setVisible(monitors.size() > 1);
    }

    /**
     * The tag mapping of imported logs, applied on Enter; the selected rows stay selected (their curves are drawn
     * again under it).
     */
    private HBox mappingRow(RunsViewModel model, Button open) {
        TextField mapping = new TextField();
        mapping.setId("runs-tag-mapping");
        mapping.setPromptText("TensorBoard tags as metrics, over the defaults: TAG=METRIC, e.g. my_loss=train/loss");
        mapping.setTooltip(new Tooltip("Defaults: " + pairs(TagMapping.DEFAULT)));
        mapping.setOnAction(e -> {
            List<Path> keep = table.getSelectionModel().getSelectedItems().stream()
                    .map(RunSummary::folder)
                    .toList();
            model.applyMapping(mapping.getText());
            for (RunSummary r : List.copyOf(table.getItems())) {
                if (keep.contains(r.folder())) {
                    table.getSelectionModel().select(r);
                }
            }
        });
        HBox.setHgrow(mapping, Priority.ALWAYS);
        HBox row = new HBox(6, open, new Label("Tag mapping"), mapping);
        row.setAlignment(Pos.CENTER_LEFT);
        return row;
    }

    private static String pairs(TagMapping mapping) {
        return mapping.tagToMetric().entrySet().stream()
                .sorted(Map.Entry.comparingByValue())
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", "));
    }

    public TableView<RunSummary> table() {
        return table;
    }

    /** @param differences null when fewer than two runs are selected */
    static String describe(Map<String, List<String>> differences) {
        if (differences == null) {
            return "Select two or more runs (Ctrl+click) to overlay their curves and see how their configs differ.";
        }
        if (differences.isEmpty()) {
            return "Their configs are the same.";
        }
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, List<String>> d : differences.entrySet()) {
            if (d.getKey().equals("name")) {
                continue;
            }
            b.append(d.getKey())
                    .append(": ")
                    .append(String.join("  |  ", d.getValue()))
                    .append('\n');
        }
        return b.length() == 0
                ? "Their configs differ only in their names."
                : b.toString().strip();
    }
}
