package org.traindeck.app.evaluate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import org.traindeck.engine.api.runs.ClassFigures;
import org.traindeck.engine.api.runs.Evaluation;
import org.traindeck.engine.config.Task;

/** A trained model's evaluation: the task's figures, the confusion matrix as a heat map, and the per-class table. */
public final class EvaluationPane extends ScrollPane {

    private final Label title = new Label("Evaluation");
    private final GridPane figures = new GridPane();
    private final StepAccuracyChart steps = new StepAccuracyChart();
    private final ConfusionHeatMap confusion = new ConfusionHeatMap();
    private final TableView<ClassFigures> classes = new TableView<>();

    public EvaluationPane(EvaluationViewModel model) {
        setId("evaluation-pane");
        setFitToWidth(true);
        title.setId("evaluation-title");
        title.getStyleClass().add("run-summary-title");
        Label message = new Label();
        message.setId("evaluation-message");
        message.setWrapText(true);
        message.textProperty().bind(model.messageProperty());
        ProgressIndicator working = new ProgressIndicator();
        working.setId("evaluation-busy");
        working.setPrefSize(24, 24);
        working.progressProperty().bind(model.progressProperty());
        working.visibleProperty().bind(model.busyProperty());
        working.managedProperty().bind(model.busyProperty());
        figures.setId("evaluation-figures");
        figures.setHgap(16);
        figures.setVgap(2);
        classes.setId("evaluation-classes");
        classes.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        classes.setPrefHeight(260);
        VBox content = new VBox(8, title, new HBox(6, working, message), figures, steps, confusion, classes);
        content.setPadding(new Insets(10));
        setContent(content);
        model.evaluationProperty().addListener((o, a, b) -> show(b));
        show(model.evaluationProperty().get());
    }

    private void show(Evaluation e) {
        figures.getChildren().clear();
        steps.show(e == null ? Map.of() : e.figures());
        if (e == null) {
            confusion.show(null, List.of());
            classes.getItems().clear();
            classes.setVisible(false);
            classes.setManaged(false);
            return;
        }
        title.setText("Evaluation of " + e.runName() + (e.ema() ? " (weight average)" : "") + ": " + e.task().json);
        int row = 0;
        for (Map.Entry<String, Double> f : e.figures().entrySet()) {
            Label name = new Label(f.getKey());
            Label value = new Label(String.format(Locale.ROOT, "%.4f", f.getValue()));
            value.setId("evaluation-figure-" + f.getKey().replace('/', '-'));
            figures.addRow(row++, name, value);
        }
        confusion.show(e.confusionMatrix(), e.classNames());
        boolean perClass = !e.perClass().isEmpty();
        classes.setVisible(perClass);
        classes.setManaged(perClass);
        classes.getColumns().setAll(columns(e.task() == Task.SEGMENTATION));
        classes.getItems().setAll(e.perClass());
    }

    private static List<TableColumn<ClassFigures, ?>> columns(boolean iou) {
        List<TableColumn<ClassFigures, ?>> c = new ArrayList<>(List.of(
                column("Class", ClassFigures::name),
                column("Support", ClassFigures::support),
                column("Precision", f -> new Figure(f.precision())),
                column("Recall", f -> new Figure(f.recall())),
                column("F1", f -> new Figure(f.f1()))));
        if (iou) {
            c.add(column("IoU", f -> new Figure(f.iou())));
        }
        return c;
    }

    private static <T extends Comparable<? super T>> TableColumn<ClassFigures, T> column(
            String title, Function<ClassFigures, T> value) {
        TableColumn<ClassFigures, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
        return c;
    }

    /** A figure that sorts as a number and reads "-" when undefined (a class never predicted has no precision). */
    private record Figure(double value) implements Comparable<Figure> {
        @Override
        public int compareTo(Figure o) {
            return Double.compare(Double.isNaN(value) ? -1 : value, Double.isNaN(o.value) ? -1 : o.value);
        }

        @Override
        public String toString() {
            return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.4f", value);
        }
    }
}
