package org.traindeck.app.charts;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/** What the crosshair reads out: every series' value at the point nearest the mouse. */
final class LineReadout {

    private LineReadout() {}

    /** Rows headed by where the point is ("step 120", "31.5 s"); empty when nothing is drawn. */
    static List<String> at(Collection<ChartLine> lines, boolean byTime, double x) {
        List<String> rows = new ArrayList<>();
        double at = Double.NaN;
        for (ChartLine l : lines) {
            int n = l.data.size();
            if (n == 0) {
                continue;
            }
            double[] xs = l.data.xs(byTime);
            int i = Math.min(n - 1, MinMaxReducer.lowerBound(xs, n, x));
            if (i > 0 && Math.abs(xs[i - 1] - x) < Math.abs(xs[i] - x)) {
                i--;
            }
            if (Double.isNaN(at)) {
                at = xs[i];
            }
            rows.add(String.format(Locale.ROOT, "%s  %.4g", l.label, l.data.value(i)));
        }
        if (!rows.isEmpty()) {
            rows.add(
                    0, byTime ? String.format(Locale.ROOT, "%.1f s", at) : String.format(Locale.ROOT, "step %.0f", at));
        }
        return rows;
    }
}
