package org.traindeck.app.charts;

import java.util.List;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.layout.Pane;

/**
 * Charts in as many columns as fit side by side at their minimum width (two on a wide pane, one on a narrow one),
 * rows sharing the height, each row at least {@link #MIN_ROW_HEIGHT}: inside a scroll pane, a narrow or low pane
 * scrolls instead of cutting a chart's axes or controls off.
 */
public final class ChartGrid extends Pane {

    /** Below this a chart's axes and legend crowd out its plot. */
    static final double MIN_CELL_WIDTH = 340;

    static final double MIN_ROW_HEIGHT = 210;
    private final double gap;

    public ChartGrid(double gap, Node... charts) {
        this.gap = gap;
        getStyleClass().add("chart-grid");
        getChildren().addAll(charts);
        setPadding(new Insets(0));
    }

    @Override
    public Orientation getContentBias() {
        return Orientation.HORIZONTAL;
    }

    /** The widest of the charts' own minimum widths (a control row that must fit), or the readable minimum. */
    private double cellMinWidth() {
        double w = MIN_CELL_WIDTH;
        for (Node n : managed()) {
            w = Math.max(w, n.minWidth(-1));
        }
        return Math.ceil(w);
    }

    private List<Node> managed() {
        return getManagedChildren();
    }

    int columnsFor(double width) {
        int n = managed().size();
        if (n == 0) {
            return 1;
        }
        double inner = width - snappedLeftInset() - snappedRightInset();
        int fit = (int) Math.floor((inner + gap) / (cellMinWidth() + gap));
        return Math.max(1, Math.min(n, fit));
    }

    private int rowsFor(int columns) {
        return (managed().size() + columns - 1) / columns;
    }

    @Override
    protected double computeMinWidth(double height) {
        return cellMinWidth() + snappedLeftInset() + snappedRightInset();
    }

    @Override
    protected double computePrefWidth(double height) {
        return 2 * cellMinWidth() + gap + snappedLeftInset() + snappedRightInset();
    }

    @Override
    protected double computeMinHeight(double width) {
        int rows = rowsFor(columnsFor(width < 0 ? computePrefWidth(-1) : width));
        return rows * MIN_ROW_HEIGHT + (rows - 1) * gap + snappedTopInset() + snappedBottomInset();
    }

    @Override
    protected double computePrefHeight(double width) {
        return computeMinHeight(width);
    }

    @Override
    protected void layoutChildren() {
        List<Node> children = managed();
        if (children.isEmpty()) {
            return;
        }
        int columns = columnsFor(getWidth());
        int rows = rowsFor(columns);
        double left = snappedLeftInset();
        double top = snappedTopInset();
        double innerW = getWidth() - left - snappedRightInset();
        double innerH = getHeight() - top - snappedBottomInset();
        double cellW = Math.floor((innerW - (columns - 1) * gap) / columns);
        double cellH = Math.max(MIN_ROW_HEIGHT, Math.floor((innerH - (rows - 1) * gap) / rows));
        for (int i = 0; i < children.size(); i++) {
            int col = i % columns;
            int row = i / columns;
            children.get(i).resizeRelocate(left + col * (cellW + gap), top + row * (cellH + gap), cellW, cellH);
        }
    }
}
