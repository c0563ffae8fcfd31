package org.traindeck.app.layers;

import java.util.Objects;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import org.traindeck.engine.events.LayerMetrics.Figure;

/**
 * One table row: a layer's figures as properties, copied from its {@link LayerRow} when the view refreshes, so the
 * table's cells update their text in place (rebuilding every cell, as {@code TableView.refresh()} does, costs a
 * style pass per cell). Only values that changed are set.
 */
final class LayerItem {

    private final LayerRow row;

    @SuppressWarnings("unchecked")
    private final ReadOnlyObjectWrapper<Double>[] figures = new ReadOnlyObjectWrapper[Figure.values().length];

    private final ReadOnlyObjectWrapper<Long> step = new ReadOnlyObjectWrapper<>(-1L);
    private final ReadOnlyObjectWrapper<String> warning = new ReadOnlyObjectWrapper<>("");

    LayerItem(LayerRow row) {
        this.row = row;
        for (int i = 0; i < figures.length; i++) {
            figures[i] = new ReadOnlyObjectWrapper<>();
        }
        update();
    }

    LayerRow row() {
        return row;
    }

    void update() {
        for (Figure f : Figure.values()) {
            Double v = row.has(f) ? row.value(f) : null;
            if (!Objects.equals(figures[f.ordinal()].get(), v)) {
                figures[f.ordinal()].set(v);
            }
        }
        step.set(row.step());
        warning.set(row.warning() == null ? "" : row.warning());
    }

    /** The latest value of {@code f}, null before the first. */
    ReadOnlyObjectProperty<Double> figure(Figure f) {
        return figures[f.ordinal()].getReadOnlyProperty();
    }

    ReadOnlyObjectProperty<Long> step() {
        return step.getReadOnlyProperty();
    }

    /** The latest warning naming the layer, "" for none. */
    ReadOnlyObjectProperty<String> warning() {
        return warning.getReadOnlyProperty();
    }
}
