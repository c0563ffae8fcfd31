package org.traindeck.bench;

import java.util.Arrays;
import java.util.Locale;

/** Median and spread (min to max) of repeated measurements. */
record Stats(double median, double min, double max, int n) {

    /** A rate for a console line: one decimal, or three significant digits under 10 a second (never an exponent). */
    static String rate(double perSecond) {
        return perSecond < 10
                ? String.format(Locale.ROOT, "%.3g", perSecond)
                : String.format(Locale.ROOT, "%.1f", perSecond);
    }

    static Stats of(double... values) {
        double[] v = values.clone();
        Arrays.sort(v);
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        return new Stats(median, v[0], v[v.length - 1], v.length);
    }

    String format(String unit, int decimals) {
        String f = "%." + decimals + "f";
        return String.format(Locale.ROOT, f + " %s (" + f + "–" + f + ")", median, unit, min, max);
    }
}
