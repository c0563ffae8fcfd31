package org.traindeck.app.charts;

import java.awt.BasicStroke;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;

/** A chart's stage boundaries: dashed vertical lines, each placed by step or by time as the x axis shows. */
final class StageMarkers {

    private record Boundary(ValueMarker marker, double step, double time) {}

    private final List<Boundary> boundaries = new ArrayList<>();

    void add(double step, double time, String label) {
        ValueMarker m = new ValueMarker(step);
        m.setLabel(label);
        m.setPaint(new Color(140, 140, 140));
        m.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
        m.setStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f, new float[] {3f, 3f}, 0f));
        boundaries.add(new Boundary(m, step, time));
    }

    int size() {
        return boundaries.size();
    }

    void clear() {
        boundaries.clear();
    }

    /** Puts every boundary on the plot at its step, or at its time when the x axis is time. */
    void placeOn(XYPlot plot, boolean byTime) {
        plot.clearDomainMarkers();
        for (Boundary b : boundaries) {
            b.marker().setValue(byTime ? b.time() : b.step());
            plot.addDomainMarker(b.marker());
        }
    }
}
