package org.traindeck.app.charts;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Paint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;

/**
 * A chart's stage boundaries: dashed vertical lines named by their stage, each placed by step or by time as the x axis
 * shows, in the theme's colours (JFreeChart's default black name was unreadable on the dark theme).
 */
final class StageMarkers {

    private static final Color LINE = new Color(140, 140, 140);

    private record Boundary(ValueMarker marker, double step, double time) {}

    private final List<Boundary> boundaries = new ArrayList<>();

    void add(double step, double time, String label) {
        ValueMarker m = new ValueMarker(step);
        m.setLabel(label);
        m.setPaint(LINE);
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

    /** Puts every boundary on the plot at its step, or at its time when the x axis is time, in the theme's colours. */
    void placeOn(XYPlot plot, boolean byTime, boolean dark) {
        plot.clearDomainMarkers();
        for (Boundary b : boundaries) {
            b.marker().setValue(byTime ? b.time() : b.step());
            b.marker().setPaint(ChartPalette.readable(LINE, dark));
            b.marker().setLabelPaint(ChartTheme.text(dark));
            plot.addDomainMarker(b.marker());
        }
    }

    /** Each boundary's line and name colours as drawn, keyed "name line" and "name label". */
    Map<String, Paint> paints() {
        Map<String, Paint> out = new LinkedHashMap<>();
        for (Boundary b : boundaries) {
            out.put(b.marker().getLabel() + " line", b.marker().getPaint());
            out.put(b.marker().getLabel() + " label", b.marker().getLabelPaint());
        }
        return out;
    }
}
