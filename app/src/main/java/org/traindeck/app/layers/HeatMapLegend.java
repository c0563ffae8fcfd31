package org.traindeck.app.layers;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/** The heat map's colour legend: the log scale as a bar, one label a decade (or every other one), and NaN's swatch. */
final class HeatMapLegend {

    private static final Font FONT = Font.font(11);

    private HeatMapLegend() {}

    /** Draws the bar at {@code x}, from {@code top} down {@code height} pixels, the swatch below it. */
    static void draw(GraphicsContext g, double x, double top, double height, boolean dark) {
        int decades = LogColorScale.HIGH_DECADE - LogColorScale.LOW_DECADE;
        for (int i = 0; i < (int) height; i++) {
            double exponent = LogColorScale.HIGH_DECADE - decades * (i / height);
            int argb = LogColorScale.argb(Math.pow(10, exponent));
            g.setFill(Color.rgb(argb >> 16 & 0xff, argb >> 8 & 0xff, argb & 0xff));
            g.fillRect(x, top + i, 10, 1);
        }
        g.setFill(Figures.text(dark));
        g.setFont(FONT);
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.CENTER);
        double spacing = height / decades;
        int every = spacing < 12 ? 2 : 1;
        for (int d = 0; d <= decades; d += every) {
            int exponent = LogColorScale.HIGH_DECADE - d;
            g.fillText(exponent == 0 ? "1" : "1e" + exponent, x + 13, top + d * spacing);
        }
        int nan = LogColorScale.NOT_A_NUMBER;
        g.setFill(Color.rgb(nan >> 16 & 0xff, nan >> 8 & 0xff, nan & 0xff));
        g.fillRect(x, top + height + 6, 10, 8);
        g.setFill(Figures.text(dark));
        g.fillText("NaN", x + 13, top + height + 10);
    }
}
