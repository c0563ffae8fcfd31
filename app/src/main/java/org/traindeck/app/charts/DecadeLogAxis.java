package org.traindeck.app.charts;

import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.TextAnchor;

/**
 * A log axis whose ticks read as people write them: 1, 2 and 5 × 10^n ("0.02", "5", "2e-5") when the range spans a
 * few decades, whole decades when it spans many, and evenly spaced values when it is narrower than one 1-2-5 step.
 * JFreeChart's own log axis puts ticks at fractional powers and labels them "10^0.4".
 */
final class DecadeLogAxis extends LogAxis {

    private static final double[] ONE_TWO_FIVE = {1, 2, 5};
    private static final int MOST_TICKS = 8;

    DecadeLogAxis(String label) {
        super(label);
        setSmallestValue(1e-12);
    }

    @Override
    protected List refreshTicksVertical(Graphics2D g2, Rectangle2D dataArea, RectangleEdge edge) {
        List<NumberTick> ticks = new ArrayList<>();
        for (double v : ticks(getLowerBound(), getUpperBound())) {
            ticks.add(new NumberTick(v, label(v), TextAnchor.CENTER_RIGHT, TextAnchor.CENTER, 0.0));
        }
        return ticks;
    }

    /** The tick values for the range: 1-2-5 × 10^n, whole decades, or evenly spaced in a narrow range. */
    static List<Double> ticks(double lower, double upper) {
        if (!(lower > 0) || !(upper > lower) || Double.isInfinite(upper)) {
            return List.of();
        }
        int first = (int) Math.floor(Math.log10(lower));
        int last = (int) Math.ceil(Math.log10(upper));
        List<Double> ticks = new ArrayList<>();
        if (last - first <= 3) {
            for (int e = first; e <= last; e++) {
                for (double m : ONE_TWO_FIVE) {
                    addIfInside(ticks, m, e, lower, upper);
                }
            }
        } else {
            int every = Math.max(1, (int) Math.ceil((last - first) / (double) MOST_TICKS));
            for (int e = first; e <= last; e += every) {
                addIfInside(ticks, 1, e, lower, upper);
            }
        }
        return ticks.size() >= 2 ? ticks : evenlySpaced(lower, upper);
    }

    private static void addIfInside(List<Double> ticks, double mantissa, int exponent, double lower, double upper) {
        double v = new BigDecimal(mantissa).scaleByPowerOfTen(exponent).doubleValue();
        if (v >= lower && v <= upper) {
            ticks.add(v);
        }
    }

    /** A narrow range (losses between 0.31 and 0.45): ticks at a round step, as a linear axis would put them. */
    private static List<Double> evenlySpaced(double lower, double upper) {
        double raw = (upper - lower) / 4;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double step = magnitude;
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * magnitude >= raw) {
                step = m * magnitude;
                break;
            }
        }
        List<Double> ticks = new ArrayList<>();
        for (long k = (long) Math.ceil(lower / step); k * step <= upper; k++) {
            ticks.add(BigDecimal.valueOf(k).multiply(BigDecimal.valueOf(step)).doubleValue());
        }
        return ticks;
    }

    /** "0.02", "0.0005", "500", "2e-5", "1e+6": plain where that is short, else the exponent. */
    static String label(double v) {
        double a = Math.abs(v);
        if (a >= 1e-4 && a < 1e5) {
            return new BigDecimal(String.format(Locale.ROOT, "%.4g", v))
                    .stripTrailingZeros()
                    .toPlainString();
        }
        // %e always has an exponent (%g gives none from 1e-4 on, and the cut above moves)
        String s = String.format(Locale.ROOT, "%.2e", v);
        int e = s.indexOf('e');
        String mantissa = new BigDecimal(s.substring(0, e)).stripTrailingZeros().toPlainString();
        int exponent = Integer.parseInt(s.substring(e + 1));
        return mantissa + "e" + (exponent > 0 ? "+" : "") + exponent;
    }
}
