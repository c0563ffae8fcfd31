package org.traindeck.app.layers;

import atlantafx.base.theme.Styles;
import java.util.Comparator;
import java.util.Locale;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.value.ChangeListener;
import javafx.css.PseudoClass;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import org.traindeck.app.ui.WholeColumns;
import org.traindeck.engine.events.LayerMetrics.Figure;

/** The layers' latest figures, one row per layer, sortable by any column; a layer with a warning is marked. */
final class LayerTable extends TableView<LayerItem> {

    static final PseudoClass WARNED = PseudoClass.getPseudoClass("warned");

    LayerTable() {
        setId("layers-table");
        getStyleClass().add(Styles.DENSE);
        setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        TableColumn<LayerItem, String> name = new TableColumn<>("Layer");
        name.setId("layers-col-layer");
        name.setCellValueFactory(
                c -> new ReadOnlyStringWrapper(c.getValue().row().node()));
        name.setPrefWidth(150);
        getColumns().add(name);
        getColumns().add(figure("Update ratio", Figure.UPDATE_RATIO));
        getColumns().add(figure("Param norm", Figure.PARAM_NORM));
        getColumns().add(figure("Grad norm", Figure.GRAD_NORM));
        getColumns().add(figure("Act mean", Figure.ACT_MEAN));
        getColumns().add(figure("Act std", Figure.ACT_STD));
        getColumns().add(figure("Zeros", Figure.ACT_ZERO_FRACTION));
        TableColumn<LayerItem, Long> step = new TableColumn<>("Step");
        step.setId("layers-col-step");
        step.setCellValueFactory(c -> c.getValue().step());
        step.setCellFactory(c -> text(s -> s == null || s < 0 ? "" : Figures.step(s)));
        step.setPrefWidth(75);
        getColumns().add(step);
        TableColumn<LayerItem, String> warning = new TableColumn<>("Warning");
        warning.setId("layers-col-warning");
        warning.setCellValueFactory(c -> c.getValue().warning());
        warning.setCellFactory(c -> warningCell());
        warning.setPrefWidth(100);
        getColumns().add(warning);
        setRowFactory(t -> new WarnedRow());
        WholeColumns.keepTitles(this);
        setPlaceholder(new Label("No per-layer figures yet."));
    }

    /** A row marked (the {@code :warned} pseudo-class, and the style class {@code layer-warned}) while its layer has a warning. */
    private static final class WarnedRow extends TableRow<LayerItem> {

        private final ChangeListener<String> onWarning = (o, a, b) -> mark(b);
        private LayerItem watched;

        @Override
        protected void updateItem(LayerItem item, boolean empty) {
            super.updateItem(item, empty);
            if (watched != null) {
                watched.warning().removeListener(onWarning);
            }
            watched = empty ? null : item;
            if (watched != null) {
                watched.warning().addListener(onWarning);
            }
            mark(watched == null ? "" : watched.warning().get());
        }

        private void mark(String warning) {
            boolean warned = !warning.isEmpty();
            pseudoClassStateChanged(WARNED, warned);
            getStyleClass().remove("layer-warned");
            if (warned) {
                getStyleClass().add("layer-warned");
            }
        }
    }

    private static TableColumn<LayerItem, Double> figure(String title, Figure f) {
        TableColumn<LayerItem, Double> c = new TableColumn<>(title);
        c.setId("layers-col-" + f.suffix());
        c.setCellValueFactory(v -> v.getValue().figure(f));
        // a figure not reported yet sorts after every value
        c.setComparator(Comparator.nullsLast(Comparator.naturalOrder()));
        c.setCellFactory(t -> text(v -> v == null
                ? ""
                : f == Figure.ACT_ZERO_FRACTION && !Double.isNaN(v)
                        ? String.format(Locale.ROOT, "%.1f %%", 100 * v)
                        : Figures.format(v)));
        c.setPrefWidth(108);
        return c;
    }

    private static <T> TableCell<LayerItem, T> text(Function<T, String> format) {
        return new TableCell<>() {
            @Override
            protected void updateItem(T item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty ? null : format.apply(item));
            }
        };
    }

    private static TableCell<LayerItem, String> warningCell() {
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
