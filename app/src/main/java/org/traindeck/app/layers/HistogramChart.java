package org.traindeck.app.layers;

import java.util.Locale;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;
import org.traindeck.engine.events.HistogramEvent;

/** One histogram (a layer's weights or gradients at a step) as bars over even bins, with its range and figures. */
final class HistogramChart extends Region {

    static final int BINS = 40;
    private static final Font FONT = Font.font(11);

    private final Canvas canvas = new Canvas();
    private final String title;
    private final Color color;
    private HistogramEvent shown;
    private boolean dark;

    HistogramChart(String id, String title, Color color) {
        this.title = title;
        this.color = color;
        setId(id);
        getChildren().add(canvas);
        setMinSize(120, 80);
        setPrefSize(260, 150);
    }

    @Override
    protected void layoutChildren() {
        double w = snapSizeX(getWidth());
        double h = snapSizeY(getHeight());
        if (canvas.getWidth() != w || canvas.getHeight() != h) {
            canvas.setWidth(w);
            canvas.setHeight(h);
            redraw();
        }
    }

    /** Shows {@code h} (null: none yet); redraws only if it is another histogram. */
    void show(HistogramEvent h) {
        if (h != shown) {
            shown = h;
            redraw();
        }
    }

    HistogramEvent shown() {
        return shown;
    }

    void setDark(boolean dark) {
        this.dark = dark;
        redraw();
    }

    private void redraw() {
        GraphicsContext g = canvas.getGraphicsContext2D();
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        g.setFill(Figures.background(dark));
        g.fillRect(0, 0, w, h);
        g.setFont(FONT);
        g.setFill(Figures.text(dark));
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        if (shown == null) {
            g.fillText(title + ": none yet", 4, 2);
            return;
        }
        g.fillText(title + " at step " + Figures.step(shown.step()), 4, 2, w - 8);
        g.fillText(
                String.format(
                        Locale.ROOT,
                        "n %s · mean %s · std %s",
                        Figures.step(shown.count()),
                        Figures.format(HistogramBins.mean(shown)),
                        Figures.format(HistogramBins.std(shown))),
                4,
                16,
                w - 8);
        double top = 32;
        double bottom = h - 16;
        double left = 4;
        double width = w - 8;
        if (bottom - top < 4 || width < 4) {
            return;
        }
        double[] bins = HistogramBins.spread(shown, BINS);
        double most = 0;
        for (double b : bins) {
            most = Math.max(most, b);
        }
        g.setFill(Figures.empty(dark));
        g.fillRect(left, top, width, bottom - top);
        g.setFill(color);
        double barWidth = width / BINS;
        for (int i = 0; i < BINS; i++) {
            if (bins[i] > 0 && most > 0) {
                double barHeight = Math.max(1, (bottom - top) * bins[i] / most);
                g.fillRect(left + i * barWidth, bottom - barHeight, Math.max(1, barWidth - 1), barHeight);
            }
        }
        if (shown.min() < 0 && shown.max() > 0) {
            double zero = left + width * (-shown.min()) / (shown.max() - shown.min());
            g.setStroke(Figures.text(dark));
            g.setLineWidth(1);
            g.strokeLine(zero, top, zero, bottom);
        }
        g.setFill(Figures.text(dark));
        g.fillText(Figures.format(shown.min()), left, bottom + 2);
        g.setTextAlign(TextAlignment.RIGHT);
        g.fillText(Figures.format(shown.max()), left + width, bottom + 2);
    }
}
