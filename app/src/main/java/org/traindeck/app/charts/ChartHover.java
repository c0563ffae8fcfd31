package org.traindeck.app.charts;

import java.awt.geom.Rectangle2D;
import java.util.List;
import java.util.function.DoubleFunction;
import org.jfree.chart.fx.interaction.ChartMouseEventFX;
import org.jfree.chart.fx.interaction.ChartMouseListenerFX;

/**
 * The mouse over a live chart: a crosshair with every series' value at the pointer while it is over the data, and a
 * double click that shows all the data again after a zoom.
 */
final class ChartHover {

    private final ChartPlot plot;
    private final ChartOverlay overlay;
    private final DoubleFunction<List<String>> readoutAt;

    private ChartHover(ChartPlot plot, ChartOverlay overlay, DoubleFunction<List<String>> readoutAt) {
        this.plot = plot;
        this.overlay = overlay;
        this.readoutAt = readoutAt;
    }

    /** {@code readoutAt} gives the read-out lines at an x value of the data. */
    static void install(
            ChartPlot plot, ChartOverlay overlay, Runnable resetZoom, DoubleFunction<List<String>> readoutAt) {
        ChartHover hover = new ChartHover(plot, overlay, readoutAt);
        plot.viewer().addChartMouseListener(new ChartMouseListenerFX() {
            @Override
            public void chartMouseClicked(ChartMouseEventFX event) {
                if (event.getTrigger().getClickCount() == 2) {
                    resetZoom.run();
                }
            }

            @Override
            public void chartMouseMoved(ChartMouseEventFX event) {
                hover.moved(event.getTrigger().getX(), event.getTrigger().getY());
            }
        });
        plot.viewer().setOnMouseExited(e -> overlay.hideHover());
    }

    private void moved(double screenX, double screenY) {
        Rectangle2D area = plot.dataArea();
        if (area == null) {
            return;
        }
        if (screenX < area.getMinX() || screenX > area.getMaxX()) {
            overlay.hideHover();
            return;
        }
        double x = plot.xAt(screenX, area);
        overlay.showHover(screenX, screenY, area, readoutAt.apply(x));
    }
}
