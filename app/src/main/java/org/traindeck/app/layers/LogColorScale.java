package org.traindeck.app.layers;

/**
 * The heat map's colours: the update ratio on a log scale from 1e-6 (dark blue: a layer that hardly learns) through
 * 1e-3 (pale yellow: the usual healthy value) to 1 (dark red: a layer whose weights change as fast as they are big).
 * Values beyond either end take the end's colour; a ratio that is not a number (a diverged step) is magenta, so it
 * can never pass for a healthy one.
 */
public final class LogColorScale {

    /** Lowest and highest decade of the scale (1e-6 and 1e0). */
    public static final int LOW_DECADE = -6;

    public static final int HIGH_DECADE = 0;
    /** The healthy centre of the scale (1e-3), from which a cell's most extreme value is chosen. */
    public static final double CENTRE = 1e-3;

    public static final int NOT_A_NUMBER = 0xffff00ff;

    // ColorBrewer's RdYlBu, blue at the low end, one stop per decade
    private static final int[] STOPS = {0x313695, 0x4575b4, 0xabd9e9, 0xffffbf, 0xfdae61, 0xd73027, 0xa50026};

    private LogColorScale() {}

    /** Where {@code value} lies on the scale, from 0 (1e-6 or less, zero included) to 1 (1 or more). */
    public static double position(double value) {
        if (!(value > 0)) {
            return 0;
        }
        double t = (Math.log10(value) - LOW_DECADE) / (HIGH_DECADE - LOW_DECADE);
        return Math.max(0, Math.min(1, t));
    }

    /** The opaque ARGB colour of {@code value}. */
    public static int argb(double value) {
        if (Double.isNaN(value)) {
            return NOT_A_NUMBER;
        }
        double at = position(value) * (STOPS.length - 1);
        int i = Math.min(STOPS.length - 2, (int) Math.floor(at));
        double f = at - i;
        int a = STOPS[i];
        int b = STOPS[i + 1];
        int r = mix(a >> 16, b >> 16, f);
        int g = mix(a >> 8, b >> 8, f);
        int bl = mix(a, b, f);
        return 0xff000000 | r << 16 | g << 8 | bl;
    }

    private static int mix(int a, int b, double f) {
        return (int) Math.round((a & 0xff) * (1 - f) + (b & 0xff) * f);
    }

    /**
     * How far {@code value} is from the healthy centre, in decades: what decides which of a cell's values it shows.
     * Zero and negative values are infinitely far (a layer that does not learn), and so is NaN.
     */
    public static double distance(double value) {
        if (Double.isNaN(value) || !(value > 0)) {
            return Double.POSITIVE_INFINITY;
        }
        return Math.abs(Math.log10(value) - Math.log10(CENTRE));
    }
}
