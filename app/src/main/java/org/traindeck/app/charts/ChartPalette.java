package org.traindeck.app.charts;

import java.awt.Color;

/**
 * Series colours that stay readable on the theme's background: a colour with less than {@link #MIN_CONTRAST} to it
 * (WCAG 2 contrast ratio; 3:1 is the minimum for graphics) is lightened on the dark theme, darkened on the light
 * one, keeping its hue, until it has. A dark grey "total" line on near-black becomes a light grey.
 */
public final class ChartPalette {

    public static final double MIN_CONTRAST = 3.0;
    public static final Color LIGHT_BACKGROUND = Color.WHITE;
    public static final Color DARK_BACKGROUND = new Color(0x0d1117);

    private ChartPalette() {}

    public static Color background(boolean dark) {
        return dark ? DARK_BACKGROUND : LIGHT_BACKGROUND;
    }

    /** {@code c}, or the nearest colour of its hue with at least 3:1 contrast to the theme's background. */
    public static Color readable(Color c, boolean dark) {
        Color bg = background(dark);
        Color out = c;
        for (int i = 0; i < 40 && contrast(out, bg) < MIN_CONTRAST; i++) {
            out = dark ? mix(out, Color.WHITE, 0.1) : mix(out, Color.BLACK, 0.1);
        }
        return new Color(out.getRed(), out.getGreen(), out.getBlue(), c.getAlpha());
    }

    private static Color mix(Color a, Color b, double t) {
        return new Color(
                (int) Math.round(a.getRed() + (b.getRed() - a.getRed()) * t),
                (int) Math.round(a.getGreen() + (b.getGreen() - a.getGreen()) * t),
                (int) Math.round(a.getBlue() + (b.getBlue() - a.getBlue()) * t));
    }

    /** The WCAG 2 contrast ratio of two opaque colours, from 1 (the same) to 21 (black on white). */
    public static double contrast(Color a, Color b) {
        double la = luminance(a);
        double lb = luminance(b);
        return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    }

    /** WCAG 2 relative luminance. */
    static double luminance(Color c) {
        return 0.2126 * channel(c.getRed()) + 0.7152 * channel(c.getGreen()) + 0.0722 * channel(c.getBlue());
    }

    private static double channel(int v) {
        double s = v / 255.0;
        return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
    }
}
