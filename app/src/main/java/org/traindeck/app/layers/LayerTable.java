package org.traindeck.app.layers;

import atlantafx.base.theme.Styles;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import org.traindeck.engine.events.LayerMetrics.Figure;

import java.util.Comparator;
import java.util.Locale;
import java.util.function.Function;

/** The layers' latest figures, one row per layer, sortable by any column; a layer with a warning is marked. */
final class LayerTable extends TableView<LayerRow> {

    LayerTable() {
        setId("layers-table");
        getStyleClass().add(Styles.DENSE);
        setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        TableColumn<LayerRow, String> name = new TableColumn<>("Layer");
        name.setId("layers-col-layer");
        name.setCellValueFactory(c -> new ReadOnlyStringWrapper(c.getValue().node()));
        name.setPrefWidth(150);
        getColumns().add(name);
        getColumns().add(figure("Update ratio", Figure.UPDATE_RATIO));
        getColumns().add(figure("Param norm", Figure.PARAM_NORM));
        getColumns().add(figure("Grad norm", Figure.GRAD_NORM));
        getColumns().add(figure("Act mean", Figure.ACT_MEAN));
        getColumns().add(figure("Act std", Figure.ACT_STD));
        getColumns().add(figure("Zeros", Figure.ACT_ZERO_FRACTION));
        TableColumn<LayerRow, Long> step = new TableColumn<>("Step");
        step.setId("layers-col-step");
        step.setCellValueFactory(c -> new ReadOnlyObjectWrapper<>(c.getValue().step()));
        step.setCellFactory(c -> text(s -> s < 0 ? "" : Figures.step(s)));
        step.setPrefWidth(70);
        getColumns().add(step);
        TableColumn<LayerRow, String> warning = new TableColumn<>("Warning");
        warning.setId("layers-col-warning");
        warning.setCellValueFactory(c -> new ReadOnlyStringWrapper(c.getValue().warning() == null ? "" : c.getValue().warning()));
        warning.setCellFactory(c -> warningCell());
        warning.setPrefWidth(220);
        getColumns().add(warning);
        setRowFactory(t -> new TableRow<>() {
            @Override
            protected void updateItem(LayerRow item, boolean empty) {
                super.updateItem(item, empty);
                getStyleClass().remove("layer-warned");
                if (!empty && item != null && item.warning() != null) {
                    getStyleClass().add("layer-warned");
                }
            }
        });
        setPlaceholder(new Label("No per-layer figures yet."));
    }

    private static TableColumn<LayerRow, Double> figure(String title, Figure f) {
        TableColumn<LayerRow, Double> c = new TableColumn<>(title);
        c.setId("layers-col-" + f.suffix());
        // a figure not reported yet sorts after every value
        c.setCellValueFactory(v -> new ReadOnlyObjectWrapper<>(v.getValue().has(f) ? v.getValue().value(f) : null));
        c.setComparator(Comparator.nullsLast(Comparator.naturalOrder()));
        c.setCellFactory(t -> text(v -> v == null ? "" : f == Figure.ACT_ZERO_FRACTION && !Double.isNaN(v)
                ? String.format(Locale.ROOT, "%.1f %%", 100 * v) : Figures.format(v)));
        c.setPrefWidth(104);
        c.getStyleClass().add("layers-number");
        return c;
    }

    private static <T> TableCell<LayerRow, T> text(Function<T, String> format) {
        return new TableCell<>() {
            @Override
            protected void updateItem(T item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty ? null : format.apply(item));
            }
        };
    }

    private static TableCell<LayerRow, String> warningCell() {
        return new TableCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                boolean warned = !empty && item != null && !item.isEmpty();
                setText(warned ? item : null);
                setTooltip(warned ? new Tooltip(item) : null);
                getStyleClass().remove("problem-warning");
                if (warned) {
                    getStyleClass().add("problem-warning");
                }
            }
        };
    }
}
