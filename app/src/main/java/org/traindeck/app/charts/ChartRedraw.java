package org.traindeck.app.charts;

/**
 * When a live chart redraws and what it hands the chart library: any change marks it stale, and {@link #draw} draws the
 * min/max reduction of the visible range and the stage boundaries in one redraw of the plot.
 */
final class ChartRedraw {

    private final ChartLines lines;
    private final ChartPlot plot;
    private final StageMarkers markers;
    private final LineDrawer drawer;
    private boolean stale = true;
    private long drawnPoints;
    /** Whether the user has set the smoothing: until then a short series (a few validations) is drawn unsmoothed. */
    private boolean smoothingChosen;

    ChartRedraw(ChartLines lines, ChartPlot plot, StageMarkers markers) {
        this.lines = lines;
        this.plot = plot;
        this.markers = markers;
        this.drawer = new LineDrawer(plot.rawRenderer(), plot.smoothRenderer());
    }

    void markStale() {
        stale = true;
    }

    /** The user's own smoothing applies to every series from now on, short ones too. */
    void smoothingChosen() {
        smoothingChosen = true;
        stale = true;
    }

    boolean unsmoothedWhenShort() {
        return !smoothingChosen;
    }

    /** Whether anything changed since the last redraw: a setting, the range, or a series' points. */
    boolean due() {
        return stale || lines.changedSinceDrawn();
    }

    /** Points handed to the chart library at the last redraw. */
    long drawnPoints() {
        return drawnPoints;
    }

    void draw(boolean byTime, double weight, boolean logScale, boolean dark) {
        stale = false;
        double[] extent = plot.shownX(lines.xExtent(byTime));
        plot.redrawOnce(() -> {
            drawnPoints = drawer.draw(
                    lines.all(),
                    byTime,
                    extent[0],
                    extent[1],
                    plot.columns(),
                    weight,
                    logScale,
                    !smoothingChosen,
                    dark);
            markers.placeOn(plot.plot(), byTime, dark);
        });
    }
}
