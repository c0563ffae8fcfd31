package org.traindeck.app.layers;

import java.util.Locale;
import javafx.scene.paint.Color;

/** How the view writes numbers, and the colours its canvases take from the theme (Primer Light or Dark). */
final class Figures {

    private Figures() {}

    /** "0.0123", "4.2e-6", "1.5e+7": four significant digits, an exponent only where plain digits would run long. */
    static String format(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "∞" : "-∞";
        }
        double a = Math.abs(v);
        if (a == 0 || a >= 1e-3 && a < 1e5) {
            return String.format(Locale.ROOT, "%.4g", v)
                    .replaceFirst("(\\.\\d*?)0+$", "$1")
                    .replaceFirst("\\.$", "");
        }
        return String.format(Locale.ROOT, "%.2e", v).replace("e-0", "e-").replace("e+0", "e+");
    }

    /** A step count with thousands separators: "12,800". */
    static String step(long step) {
        return String.format(Locale.ROOT, "%,d", step);
    }

    static Color background(boolean dark) {
        return dark ? Color.web("#0d1117") : Color.WHITE;
    }

    static Color text(boolean dark) {
        return dark ? Color.web("#c9d1d9") : Color.web("#24292f");
    }

    /** Cells with no value yet, and the frame of the plot. */
    static Color empty(boolean dark) {
        return dark ? Color.web("#161b22") : Color.web("#eaeef2");
    }

    static Color accent(boolean dark) {
        return dark ? Color.web("#58a6ff") : Color.web("#0969da");
    }

    static Color warning(boolean dark) {
        return dark ? Color.web("#d29922") : Color.web("#bf8700");
    }
}
