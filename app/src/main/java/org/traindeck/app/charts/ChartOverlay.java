package org.traindeck.app.charts;

import java.awt.geom.Rectangle2D;
import java.util.List;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.layout.Pane;
import javafx.scene.layout.StackPane;
import javafx.scene.shape.Line;

/**
 * Drawn over a chart, never taking the mouse: the hover crosshair with a floating read-out of every series at that
 * point, and the hint shown while the chart is empty. Moving the crosshair repaints nothing underneath.
 */
final class ChartOverlay extends StackPane {

    private static final double GAP = 12;

    private final Pane hoverLayer = new Pane();
    private final Line crosshair = new Line();
    private final Label readout = new Label();
    private final Label empty = new Label();

    ChartOverlay(String idPart) {
        setMouseTransparent(true);
        getStyleClass().add("chart-overlay");
        crosshair.getStyleClass().add("chart-crosshair");
        crosshair.setManaged(false);
        readout.getStyleClass().add("chart-readout");
        readout.setManaged(false);
        readout.setPadding(new Insets(4, 8, 4, 8));
        readout.setId(idPart + "-readout");
        crosshair.setId(idPart + "-crosshair");
        hoverLayer.getChildren().addAll(crosshair, readout);
        empty.getStyleClass().add("chart-empty");
        empty.setWrapText(true);
        empty.setMaxWidth(320);
        empty.setId(idPart + "-empty");
        StackPane.setAlignment(empty, Pos.CENTER);
        getChildren().addAll(empty, hoverLayer);
        hideHover();
        showEmpty(null);
    }

    /** The crosshair at {@code x} (in this overlay's coordinates) over the plot area, the read-out beside the mouse. */
    void showHover(double x, double mouseY, Rectangle2D plotArea, List<String> rows) {
        if (rows.isEmpty()) {
            hideHover();
            return;
        }
        crosshair.setStartX(x);
        crosshair.setEndX(x);
        crosshair.setStartY(plotArea.getMinY());
        crosshair.setEndY(plotArea.getMaxY());
        readout.setText(String.join("\n", rows));
        readout.resize(readout.prefWidth(-1), readout.prefHeight(-1));
        // beside the mouse, flipped to the other side near the right or bottom edge so it stays inside the chart
        double w = readout.getWidth();
        double h = readout.getHeight();
        double left = x + GAP + w > getWidth() ? x - GAP - w : x + GAP;
        double top = Math.min(Math.max(0, mouseY - h / 2), Math.max(0, getHeight() - h));
        readout.relocate(Math.max(0, left), top);
        crosshair.setVisible(true);
        readout.setVisible(true);
    }

    void hideHover() {
        crosshair.setVisible(false);
        readout.setVisible(false);
    }

    boolean hoverShown() {
        return readout.isVisible();
    }

    String readoutText() {
        return readout.getText();
    }

    /** The hint on an empty chart; null hides it. */
    void showEmpty(String hint) {
        empty.setText(hint == null ? "" : hint);
        empty.setVisible(hint != null);
    }

    String emptyHint() {
        return empty.isVisible() ? empty.getText() : null;
    }
}
