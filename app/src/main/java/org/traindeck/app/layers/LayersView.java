package org.traindeck.app.layers;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;

/**
 * The Layers view: the update ratio of every layer over the run as a heat map, the latest weight and gradient
 * histograms of the layer under the mouse (or else the one selected), and every layer's latest figures in a table.
 * It reads its {@link LayersViewModel} on {@link #refresh()}, which the window's timer calls ten times a second, and
 * redraws only when the model changed; the table's figures are updated at most twice a second.
 */
public final class LayersView extends BorderPane {

    private static final long TABLE_EVERY_NANOS = 500_000_000L;

    private final LayersViewModel model;
    private final HeatMap heatMap;
    private final LayerTable table = new LayerTable();
    private final ObservableList<LayerItem> items = FXCollections.observableArrayList();
    /** The table's items in heat-map order (the table sorts {@link #items} in place). */
    private final List<LayerItem> byIndex = new ArrayList<>();

    private final HistogramChart weights = new HistogramChart("layers-weights", "weights", Color.web("#1f77b4"));
    private final HistogramChart gradients = new HistogramChart("layers-gradients", "gradients", Color.web("#ff7f0e"));
    private final Label shownLayer = new Label();
    private final Label readout = new Label();
    static final String HINT = "Hover over a row for its steps and values; click it for its histograms.";
    static final String EMPTY =
            "Per-layer figures (update ratio, norms, activations) and histograms appear here when the"
                    + " run reports them: by default every 50 steps (histograms every 500) and at the end of each stage. To take them"
                    + " more often: \"logging\": {\"layers\": {\"everySteps\": 10, \"histogramsEverySteps\": 50}}.";
    private final Label empty = new Label(EMPTY);
    private long drawnVersion = -1;
    private long tableDrawnAt;
    private boolean tableStale;
    private LayerRow selected;

    public LayersView(LayersViewModel model) {
        this.model = model;
        this.heatMap = new HeatMap(model);
        setId("layers-view");
        table.setItems(items);
        table.getSelectionModel().selectedItemProperty().addListener((o, a, item) -> {
            selected = item == null ? null : item.row();
            heatMap.setSelected(selected == null ? -1 : selected.index());
            showHistograms();
        });
        heatMap.setListeners(
                row -> {
                    describe(row);
                    showHistograms();
                },
                row -> {
                    LayerItem item = byIndex.get(row);
                    table.getSelectionModel().select(item);
                    table.scrollTo(item);
                });

        empty.setId("layers-empty");
        empty.getStyleClass().add("chart-empty");
        empty.setWrapText(true);
        // a wrapped line as wide as the pane was drawn a few pixels over the histograms beside it
        empty.setMaxWidth(520);
        empty.setMouseTransparent(true);
        readout.setId("layers-readout");
        readout.getStyleClass().add("layers-readout");
        readout.setText(HINT);
        StackPane map = new StackPane(heatMap, empty);
        VBox.setVgrow(map, Priority.ALWAYS);
        VBox left = new VBox(2, map, readout);
        // the heat map draws to any width: the histograms beside it keep theirs instead of being drawn over
        left.setMinWidth(0);
        map.setMinWidth(0);
        shownLayer.setId("layers-shown");
        shownLayer.getStyleClass().add("run-summary-title");
        VBox.setVgrow(weights, Priority.ALWAYS);
        VBox.setVgrow(gradients, Priority.ALWAYS);
        VBox histograms = new VBox(4, shownLayer, weights, gradients);
        histograms.setPadding(new Insets(0, 0, 0, 6));
        histograms.setPrefWidth(270);
        histograms.setMinWidth(160);
        // an HBox gives up the histograms' preferred width before cutting anything off on a narrow pane
        HBox.setHgrow(left, Priority.ALWAYS);
        // a gap between them: a wrapped hint in the heat map's place may be drawn a few pixels wider than its label
        HBox top = new HBox(8, left, histograms);
        // a narrow pane scrolls the table sideways rather than pushing the view off the window
        table.setMinWidth(200);
        SplitPane split = new SplitPane(top, table);
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.6);
        setCenter(split);
        showHistograms();
    }

    /** FX thread: brings the view up to the model; returns whether anything was redrawn. */
    public boolean refresh() {
        long now = System.nanoTime();
        boolean changed = model.version() != drawnVersion;
        if (changed) {
            drawnVersion = model.version();
            List<LayerRow> rows = model.rows();
            if (byIndex.size() != rows.size()
                    || !byIndex.isEmpty() && byIndex.get(0).row() != rows.get(0)) {
                syncItems(rows);
            }
            empty.setVisible(rows.isEmpty());
            heatMap.redraw();
            describe(heatMap.hovered());
            showHistograms();
            tableStale = true;
        }
        if (tableStale && now - tableDrawnAt >= TABLE_EVERY_NANOS) {
            tableStale = false;
            tableDrawnAt = now;
            byIndex.forEach(LayerItem::update);
            if (!table.getSortOrder().isEmpty()) {
                table.sort();
            }
        }
        return changed;
    }

    private void syncItems(List<LayerRow> rows) {
        boolean sameRun = byIndex.size() < rows.size()
                && (byIndex.isEmpty() || byIndex.get(0).row() == rows.get(0));
        if (!sameRun) {
            // another run (or none): what was selected belongs to the last one
            byIndex.clear();
            items.clear();
            selected = null;
            table.getSelectionModel().clearSelection();
        }
        List<LayerItem> added = new ArrayList<>();
        for (LayerRow r : rows.subList(byIndex.size(), rows.size())) {
            added.add(new LayerItem(r));
        }
        byIndex.addAll(added);
        items.addAll(added);
        heatMap.fitGutter(rows);
    }

    /** The histograms of the layer under the mouse, else of the one selected, else of the first. */
    private void showHistograms() {
        List<LayerRow> rows = model.rows();
        int hovered = heatMap.hovered();
        LayerRow row = hovered >= 0 && hovered < rows.size()
                ? rows.get(hovered)
                : selected != null ? selected : rows.isEmpty() ? null : rows.get(0);
        shownLayer.setText(row == null ? "Histograms" : row.node());
        weights.show(row == null ? null : row.weights());
        gradients.show(row == null ? null : row.gradients());
    }

    private void describe(int hoveredRow) {
        if (hoveredRow < 0 || hoveredRow >= model.rows().size()) {
            // no row under the mouse (or another run's rows gone): no text of a row that is not there
            readout.setText(HINT);
            return;
        }
        LayerRow row = model.rows().get(hoveredRow);
        StringBuilder text = new StringBuilder(row.node());
        int[] columns = heatMap.columnsUnderMouse();
        UpdateRatioGrid grid = model.grid();
        if (columns != null && !grid.isEmpty(row.index(), columns[0], columns[1])) {
            double low = Double.POSITIVE_INFINITY;
            double high = Double.NEGATIVE_INFINITY;
            for (int c = columns[0]; c < columns[1]; c++) {
                low = Math.min(low, grid.low(row.index(), c));
                high = Math.max(high, grid.high(row.index(), c));
            }
            text.append(" · steps ")
                    .append(Figures.step(grid.columnStart(columns[0])))
                    .append('–')
                    .append(Figures.step(grid.columnStart(columns[1]) - 1))
                    .append(" · update ratio ")
                    .append(Figures.format(low));
            if (high != low) {
                text.append(" to ").append(Figures.format(high));
            }
        }
        if (row.warning() != null) {
            text.append(" · ").append(row.warning());
        }
        readout.setText(text.toString());
    }

    public void setDark(boolean dark) {
        heatMap.setDark(dark);
        weights.setDark(dark);
        gradients.setDark(dark);
    }

    public LayersViewModel model() {
        return model;
    }
}
