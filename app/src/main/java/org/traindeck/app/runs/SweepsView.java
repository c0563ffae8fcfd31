package org.traindeck.app.runs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.ScatterChart;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;
import org.traindeck.app.run.RunController;
import org.traindeck.app.ui.Dialogs;
import org.traindeck.app.ui.WholeColumns;
import org.traindeck.engine.api.sweeps.Sweep;
import org.traindeck.engine.api.sweeps.Trial;

/**
 * A sweep as a table (each trial's values, status and metric, best first and marked ★) and a chart of the metric
 * against one parameter (on a log scale when its values span more than a decade); Run sweep… runs a sweep file.
 */
public final class SweepsView extends VBox {

    private final TableView<Trial> table = new TableView<>();
    private final ScatterChart<Number, Number> chart = new ScatterChart<>(axis(), axis());

    /** @param startFolder where the sweep chooser opens (the folder configs were last opened from) */
    public SweepsView(SweepsViewModel model, RunController controller, Dialogs dialogs, Supplier<Path> startFolder) {
        super(6);
        setId("sweeps-view");
        setPadding(new Insets(8));
        HBox top = topBar(model, controller, dialogs, startFolder);
        table.setId("sweeps-table");
        table.setPlaceholder(new Label("No sweep shown."));
        VBox.setVgrow(table, Priority.ALWAYS);
        ComboBox<String> against = new ComboBox<>();
        against.setId("sweeps-parameter");
        against.valueProperty().bindBidirectional(model.parameterProperty());
        chart.setId("sweeps-chart");
        chart.setLegendVisible(false);
        chart.setAnimated(false);
        chart.setPrefHeight(240);
        Label message = new Label();
        message.setId("sweeps-message");
        message.setWrapText(true);
        message.setMinHeight(Region.USE_PREF_SIZE);
        message.textProperty().bind(model.messageProperty());
        // the tab is made when first opened: a sweep the model shows already is shown at once, not at the next change
        Consumer<Sweep> shown = s -> {
            show(s);
            against.getItems().setAll(s == null ? List.of() : s.parameters());
            plot(s, model.parameterProperty().get());
        };
        model.shownProperty().addListener((o, a, s) -> shown.accept(s));
        shown.accept(model.shownProperty().get());
        model.parameterProperty()
                .addListener((o, a, p) -> plot(model.shownProperty().get(), p));
        // a parameter's path is the column's title, read whole ("stages[0].optimizer.learningRate")
        WholeColumns.keepTitles(table);
        getChildren().addAll(top, table, new HBox(6, new Label("Metric against"), against), chart, message);
    }

    /** The sweep shown, Refresh, and Run sweep… (while nothing else runs). */
    private static HBox topBar(
            SweepsViewModel model, RunController controller, Dialogs dialogs, Supplier<Path> startFolder) {
        ComboBox<Sweep> pick = new ComboBox<>(model.sweeps());
        pick.setId("sweeps-pick");
        pick.setConverter(new StringConverter<>() {
            @Override
            public String toString(Sweep s) {
                return s == null ? "" : s.name() + " (" + s.trials().size() + " trials)";
            }

            @Override
            public Sweep fromString(String s) {
                return null;
            }
        });
        pick.valueProperty().bindBidirectional(model.shownProperty());
        Button refresh = new Button("Refresh");
        refresh.setId("sweeps-refresh");
        refresh.setOnAction(e -> model.refresh());
        Button run = new Button("Run sweep…");
        run.setId("sweeps-run");
        run.setTooltip(new Tooltip("check a sweep file and run its trials (running it again continues it)"));
        run.setOnAction(e -> {
            Path file = dialogs.chooseSweepToRun(startFolder.get());
            if (file != null) {
                model.run(file);
            }
        });
        run.disableProperty().bind(controller.stateProperty().isNotEqualTo(RunController.State.IDLE));
        HBox top = new HBox(6, new Label("Sweep"), pick, refresh, run);
        top.setAlignment(Pos.CENTER_LEFT);
        return top;
    }

    private void show(Sweep s) {
        table.getColumns().clear();
        if (s == null) {
            table.getItems().clear();
            return;
        }
        Trial best = s.trials().isEmpty() || Double.isNaN(s.trials().get(0).best())
                ? null
                : s.trials().get(0);
        table.getColumns().add(column("", t -> t == best ? "★" : ""));
        table.getColumns().add(column("Trial", Trial::label));
        for (String p : s.parameters()) {
            table.getColumns().add(column(p, t -> t.values().get(p)));
        }
        table.getColumns().add(column("Status", t -> t.status().name().toLowerCase(Locale.ROOT)));
        table.getColumns().add(column(s.metric() + (s.maximize() ? " (max)" : " (min)"), t -> number(t.best())));
        table.getColumns().add(column("last", t -> number(t.last())));
        table.getItems().setAll(s.trials());
    }

    private void plot(Sweep s, String parameter) {
        chart.getData().clear();
        if (s == null || parameter == null) {
            return;
        }
        List<double[]> points = new ArrayList<>();
        for (Trial t : s.trials()) {
            try {
                double x = Double.parseDouble(t.values().get(parameter));
                if (!Double.isNaN(t.best())) {
                    points.add(new double[] {x, t.best()});
                }
            } catch (NumberFormatException e) {
                // a value that is not a number (an activation's name) is not plotted
            }
        }
        double min = points.stream().mapToDouble(p -> p[0]).min().orElse(1);
        double max = points.stream().mapToDouble(p -> p[0]).max().orElse(1);
        boolean log = min > 0 && max / min > 10;
        XYChart.Series<Number, Number> series = new XYChart.Series<>();
        points.forEach(p -> series.getData().add(new XYChart.Data<>(log ? Math.log10(p[0]) : p[0], p[1])));
        chart.getXAxis().setLabel(log ? "log10(" + parameter + ")" : parameter);
        chart.getYAxis().setLabel(s.metric());
        chart.getData().add(series);
    }

    /** An axis that spans the values, not zero to them: the trials' metrics are often close together. */
    private static NumberAxis axis() {
        NumberAxis a = new NumberAxis();
        a.setForceZeroInRange(false);
        return a;
    }

    /** The chart's points (x as plotted, metric), for tests. */
    List<double[]> plotted() {
        List<double[]> out = new ArrayList<>();
        chart.getData()
                .forEach(series -> series.getData()
                        .forEach(d -> out.add(new double[] {
                            d.getXValue().doubleValue(), d.getYValue().doubleValue()
                        })));
        return out;
    }

    TableView<Trial> table() {
        return table;
    }

    private static String number(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4f", v);
    }

    private static TableColumn<Trial, String> column(String title, Function<Trial, String> value) {
        TableColumn<Trial, String> c = new TableColumn<>(title);
        c.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
        return c;
    }
}
