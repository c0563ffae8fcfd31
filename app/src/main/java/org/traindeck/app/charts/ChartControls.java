package org.traindeck.app.charts;

import java.util.Locale;
import java.util.function.Consumer;
import javafx.beans.value.ObservableBooleanValue;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Slider;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

/**
 * A chart's control row: smoothing with its weight, log scale, x by step or time, Reset zoom (while zoomed) and the
 * export menu. At a narrow width the words go first, and nothing is cut to "…".
 */
final class ChartControls extends HBox {

    final Slider smoothing = new Slider(0, 0.99, 0.6);
    final Label smoothingValue = new Label();
    final CheckBox logScale = new CheckBox("log");
    final ComboBox<String> xAxis = new ComboBox<>();
    final Button resetZoom = new Button("Reset zoom");
    private final Label smooth;

    /** @param export told true for PNG, false for CSV */
    ChartControls(
            String idPart,
            boolean byTimeDefault,
            ObservableBooleanValue zoomed,
            Runnable onResetZoom,
            Consumer<Boolean> export) {
        super(6);
        smoothing.setPrefWidth(80);
        smoothing.setMinWidth(50);
        smoothing.setTooltip(new Tooltip("smoothing: a debiased moving average over the faint raw line"));
        smoothingValue.textProperty().bind(smoothing.valueProperty().asString(Locale.ROOT, "%.2f"));
        smoothingValue.setMinWidth(Region.USE_PREF_SIZE);
        xAxis.getItems().addAll("step", "time");
        xAxis.setValue(byTimeDefault ? "time" : "step");
        MenuItem png = new MenuItem("PNG image…");
        png.setOnAction(e -> export.accept(true));
        MenuItem csv = new MenuItem("CSV, every point…");
        csv.setOnAction(e -> export.accept(false));
        MenuButton exportMenu = new MenuButton("Export", null, png, csv);
        exportMenu.setMinWidth(Region.USE_PREF_SIZE);
        resetZoom.setOnAction(e -> onResetZoom.run());
        resetZoom.setTooltip(
                new Tooltip("show everything again (or double-click the chart); drag across the chart to zoom"));
        resetZoom.visibleProperty().bind(zoomed);
        resetZoom.managedProperty().bind(zoomed);
        resetZoom.setMinWidth(Region.USE_PREF_SIZE);
        logScale.setMinWidth(Region.USE_PREF_SIZE);
        xAxis.setMinWidth(Region.USE_PREF_SIZE);
        smooth = new Label("smooth");
        smooth.setMinWidth(Region.USE_PREF_SIZE);
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        getChildren().addAll(smooth, smoothing, smoothingValue, logScale, xAxis, spacer, resetZoom, exportMenu);
        setAlignment(Pos.CENTER_LEFT);
        setPadding(new Insets(2, 4, 2, 4));
        getStyleClass().add("chart-controls");
        widthProperty().addListener((o, a, w) -> {
            boolean narrow = w.doubleValue() < 400;
            smooth.setVisible(!narrow);
            smooth.setManaged(!narrow);
        });
        smooth.setId(idPart + "-smooth");
        smoothing.setId(idPart + "-smoothing");
        smoothingValue.setId(idPart + "-smoothing-value");
        logScale.setId(idPart + "-log");
        xAxis.setId(idPart + "-x");
        exportMenu.setId(idPart + "-export");
        resetZoom.setId(idPart + "-reset-zoom");
    }

    /** Without the word "smooth", which goes first at a narrow width: two charts fit side by side sooner. */
    @Override
    protected double computeMinWidth(double height) {
        double min = super.computeMinWidth(height);
        return smooth.isManaged() ? min - smooth.minWidth(height) - getSpacing() : min;
    }
}
