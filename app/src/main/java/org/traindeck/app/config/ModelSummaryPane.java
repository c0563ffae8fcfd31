package org.traindeck.app.config;

import java.util.Locale;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.traindeck.app.ui.WholeColumns;
import org.traindeck.engine.api.ModelOverview;

/**
 * The model's table (node, type, inputs, output shape, parameters), as {@code traindeck validate --summary} prints it,
 * with a node's problem in its row, the total, the fit check and the problems that are not on a node below it.
 */
public final class ModelSummaryPane extends VBox {

    public static final String ROW_ERROR = "summary-row-error";

    private final TableView<ModelOverview.Node> table = new TableView<>();

    public ModelSummaryPane(ModelSummaryViewModel model) {
        super(4);
        setId("model-summary");
        table.setId("model-table");
        table.setItems(model.nodes());
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        Label placeholder = new Label("The model's table shows here once the config's model is read.");
        // a narrow config side wraps it rather than cutting it to "…"
        placeholder.setWrapText(true);
        table.setPlaceholder(placeholder);
        table.getColumns().add(column("node", ModelOverview.Node::name));
        table.getColumns().add(column("type", ModelOverview.Node::type));
        table.getColumns().add(column("inputs", n -> String.join(", ", n.inputs())));
        table.getColumns().add(column("output", n -> n.outputShape() == null ? "" : n.outputShape()));
        TableColumn<ModelOverview.Node, String> params = column(
                "parameters", n -> n.parameters() == null ? "" : String.format(Locale.ROOT, "%,d", n.parameters()));
        params.setStyle("-fx-alignment: CENTER-RIGHT;");
        table.getColumns().add(params);
        table.getColumns().add(column("problem", n -> n.problem() == null ? "" : n.problem()));
        table.setRowFactory(t -> new TableRow<>() {
            @Override
            protected void updateItem(ModelOverview.Node node, boolean empty) {
                super.updateItem(node, empty);
                boolean bad = !empty && node != null && node.problem() != null;
                getStyleClass().remove(ROW_ERROR);
                if (bad) {
                    getStyleClass().add(ROW_ERROR);
                }
                setTooltip(bad ? new Tooltip(node.problem()) : null);
            }
        });
        VBox.setVgrow(table, Priority.ALWAYS);
        // a layer's type and size read whole; names, inputs and problems may be long and scroll
        WholeColumns.keep(table, c -> switch (c.getText()) {
            case "type" -> ModelOverview.Node::type;
            case "output" -> n -> n.outputShape() == null ? "" : n.outputShape();
            case "parameters" -> n -> n.parameters() == null ? "" : String.format(Locale.ROOT, "%,d", n.parameters());
            default -> null;
        });

        Label totals = label("model-totals", "summary-figure");
        totals.textProperty()
                .bind(Bindings.when(model.workingProperty())
                        .then(Bindings.concat(model.totalsProperty(), "  (updating…)"))
                        .otherwise(model.totalsProperty()));
        Label fit = label("model-fit", "summary-figure");
        fit.textProperty().bind(model.fitProperty());
        Label problems = label("model-problems", "problem-error");
        problems.textProperty().bind(model.problemsProperty());
        getChildren().addAll(table, totals, fit, problems);
    }

    private static Label label(String id, String style) {
        Label l = new Label();
        l.setId(id);
        l.setWrapText(true);
        // the table above gives up height first: these lines are never cut to "…"
        l.setMinHeight(Region.USE_PREF_SIZE);
        l.getStyleClass().add(style);
        l.managedProperty().bind(l.textProperty().isNotEmpty());
        l.visibleProperty().bind(l.managedProperty());
        return l;
    }

    private static TableColumn<ModelOverview.Node, String> column(
            String title, Function<ModelOverview.Node, String> value) {
        TableColumn<ModelOverview.Node, String> c = new TableColumn<>(title);
        c.setId("model-col-" + title);
        c.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
        c.setSortable(false);
        return c;
    }
}
