package org.traindeck.app.layers;

import java.util.List;
import java.util.function.IntConsumer;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.Region;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

/**
 * The update ratio of every layer over the run: one row per layer, steps left to right, on a log colour scale with
 * its legend. The grid's columns are reduced again to the pixels there are, each pixel showing the most extreme
 * value of its columns, and drawn as one image: a redraw costs layers × columns, whatever the run's length.
 */
final class HeatMap extends Region {

    private static final Font FONT = Font.font(11);
    private static final double TOP = 6;
    private static final double AXIS = 20;
    private static final double LEGEND = 62;
    private static final double MARK = 4;

    private final LayersViewModel model;
    private final Canvas canvas = new Canvas();
    private WritableImage image;
    private int[] pixels = new int[0];
    /** Pixel columns of the last drawing, and the grid columns they covered. */
    private int shownPixels;

    private int shownColumns;
    private double gutter = 60;
    private int hovered = -1;
    private double mouseX = Double.NaN;
    private int selected = -1;
    private boolean dark;
    private IntConsumer onHover = r -> {};
    private IntConsumer onSelect = r -> {};

    HeatMap(LayersViewModel model) {
        this.model = model;
        setId("layers-heatmap");
        getChildren().add(canvas);
        setMinSize(200, 120);
        canvas.addEventHandler(MouseEvent.MOUSE_MOVED, e -> hover(rowAt(e.getY()), e.getX()));
        canvas.addEventHandler(MouseEvent.MOUSE_EXITED, e -> hover(-1, Double.NaN));
        canvas.addEventHandler(MouseEvent.MOUSE_CLICKED, e -> {
            int row = rowAt(e.getY());
            if (row >= 0) {
                onSelect.accept(row);
            }
        });
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

    /** Who hears of every mouse move (with the row under it, -1 for none) and which row a click selects. */
    void setListeners(IntConsumer hover, IntConsumer select) {
        this.onHover = hover;
        this.onSelect = select;
    }

    void setSelected(int row) {
        if (row != selected) {
            selected = row;
            redraw();
        }
    }

    int hovered() {
        return hovered;
    }

    void setDark(boolean dark) {
        this.dark = dark;
        redraw();
    }

    private void hover(int row, double x) {
        mouseX = x;
        if (row != hovered) {
            hovered = row;
            redraw();
        }
        onHover.accept(row);
    }

    /** The grid columns under the mouse, from (inclusive) and to (exclusive); null when it is off the cells. */
    int[] columnsUnderMouse() {
        return Double.isNaN(mouseX) ? null : columnsAt(mouseX);
    }

    /** Widens the name gutter to the longest name, within bounds, so names are read whole where they can be. */
    void fitGutter(List<LayerRow> rows) {
        double widest = 0;
        Text probe = new Text();
        probe.setFont(FONT);
        for (LayerRow r : rows) {
            probe.setText(r.node());
            widest = Math.max(widest, probe.getLayoutBounds().getWidth());
        }
        gutter = Math.max(40, Math.min(170, widest + MARK + 8));
    }

    double plotX() {
        return gutter;
    }

    double plotWidth() {
        return Math.max(1, canvas.getWidth() - gutter - LEGEND);
    }

    /** At most this wide a grid column: a short run's few columns keep their width instead of stretching into bars. */
    static final double MAX_COLUMN_WIDTH = 12;

    /** The width the drawn columns cover, from {@link #plotX()}: the plot's, or less while the run has few columns. */
    double cellsWidth() {
        int columns = model.grid().columns();
        return columns == 0 ? plotWidth() : Math.min(plotWidth(), columns * MAX_COLUMN_WIDTH);
    }

    double plotY() {
        return TOP;
    }

    double plotHeight() {
        return Math.max(1, canvas.getHeight() - TOP - AXIS);
    }

    /** The row at height {@code y} of the canvas, -1 outside the rows. */
    int rowAt(double y) {
        int rows = model.grid().rows();
        if (rows == 0 || y < plotY() || y >= plotY() + plotHeight()) {
            return -1;
        }
        return Math.min(rows - 1, (int) ((y - plotY()) / plotHeight() * rows));
    }

    /** The grid columns drawn at {@code x} of the canvas, from (inclusive) and to (exclusive); null outside. */
    int[] columnsAt(double x) {
        if (shownPixels == 0 || x < plotX() || x >= plotX() + cellsWidth()) {
            return null;
        }
        int p = Math.min(shownPixels - 1, (int) ((x - plotX()) / cellsWidth() * shownPixels));
        return columnsOf(p);
    }

    private int[] columnsOf(int pixel) {
        int from = (int) ((long) pixel * shownColumns / shownPixels);
        int to = (int) ((long) (pixel + 1) * shownColumns / shownPixels);
        return new int[] {from, Math.max(from + 1, to)};
    }

    void redraw() {
        GraphicsContext g = canvas.getGraphicsContext2D();
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        g.setFill(Figures.background(dark));
        g.fillRect(0, 0, w, h);
        UpdateRatioGrid grid = model.grid();
        List<LayerRow> rows = model.rows();
        if (rows.isEmpty() || w < 10 || h < 10) {
            shownPixels = 0;
            return;
        }
        g.setFill(Figures.empty(dark));
        g.fillRect(plotX(), plotY(), plotWidth(), plotHeight());
        drawCells(g, grid);
        drawNames(g, rows);
        drawStepAxis(g, grid);
        HeatMapLegend.draw(g, plotX() + plotWidth() + 8, plotY(), Math.max(1, plotHeight() - 16), dark);
    }

    private void drawCells(GraphicsContext g, UpdateRatioGrid grid) {
        int columns = grid.columns();
        int rows = grid.rows();
        if (columns == 0) {
            shownPixels = 0;
            return;
        }
        int width = Math.max(1, Math.min(columns, (int) plotWidth()));
        shownPixels = width;
        shownColumns = columns;
        if (pixels.length != width * rows) {
            pixels = new int[width * rows];
        }
        for (int p = 0; p < width; p++) {
            int from = (int) ((long) p * columns / width);
            int to = Math.max(from + 1, (int) ((long) (p + 1) * columns / width));
            for (int r = 0; r < rows; r++) {
                // a layer's value holds until its next logged step: figures every 50 steps are bands, not lines with
                // gaps
                pixels[r * width + p] = grid.isEmpty(r, from, to)
                        ? (p == 0 ? 0 : pixels[r * width + p - 1])
                        : LogColorScale.argb(grid.extreme(r, from, to));
            }
        }
        if (image == null || image.getWidth() != width || image.getHeight() != rows) {
            image = new WritableImage(width, rows);
        }
        image.getPixelWriter().setPixels(0, 0, width, rows, PixelFormat.getIntArgbInstance(), pixels, 0, width);
        g.setImageSmoothing(false);
        g.drawImage(image, 0, 0, width, rows, plotX(), plotY(), cellsWidth(), plotHeight());
    }

    private void drawNames(GraphicsContext g, List<LayerRow> rows) {
        double rowHeight = plotHeight() / rows.size();
        int every = (int) Math.max(1, Math.ceil(12 / rowHeight));
        g.setFont(FONT);
        g.setTextAlign(TextAlignment.RIGHT);
        g.setTextBaseline(VPos.CENTER);
        // the rows whose names must show (hovered, selected, warned) win over their neighbours in the stride
        boolean[] forced = new boolean[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            forced[i] = i == hovered || i == selected || rows.get(i).warning() != null;
        }
        for (int i = 0; i < rows.size(); i++) {
            LayerRow row = rows.get(i);
            double y = plotY() + i * rowHeight;
            if (row.warning() != null) {
                g.setFill(Figures.warning(dark));
                g.fillRect(0, y, MARK, Math.max(2, rowHeight));
            }
            if (forced[i] || i % every == 0 && !nearForced(forced, i, every)) {
                g.setFill(
                        row.warning() != null
                                ? Figures.warning(dark)
                                : forced[i] ? Figures.accent(dark) : Figures.text(dark));
                g.fillText(clip(row.node()), gutter - 4, y + rowHeight / 2, gutter - MARK - 6);
            }
        }
        for (int i : new int[] {selected, hovered}) {
            if (i >= 0 && i < rows.size()) {
                g.setStroke(i == hovered ? Figures.text(dark) : Figures.accent(dark));
                g.setLineWidth(i == hovered ? 1 : 2);
                g.strokeRect(plotX() + 0.5, plotY() + i * rowHeight, plotWidth() - 1, Math.max(1, rowHeight));
            }
        }
    }

    /** Whether a row whose name must show lies close enough to {@code i} that the two names would overlap. */
    private static boolean nearForced(boolean[] forced, int i, int every) {
        for (int k = Math.max(0, i - every + 1); k < Math.min(forced.length, i + every); k++) {
            if (forced[k] && k != i) {
                return true;
            }
        }
        return false;
    }

    private static String clip(String name) {
        return name.length() <= 28 ? name : "…" + name.substring(name.length() - 27);
    }

    private void drawStepAxis(GraphicsContext g, UpdateRatioGrid grid) {
        if (grid.columns() == 0) {
            return;
        }
        long first = grid.columnStart(0);
        long last = grid.lastStep();
        double y = plotY() + plotHeight() + 3;
        g.setFill(Figures.text(dark));
        g.setTextBaseline(VPos.TOP);
        g.setTextAlign(TextAlignment.LEFT);
        g.fillText("step " + Figures.step(first), plotX(), y);
        g.setTextAlign(TextAlignment.RIGHT);
        g.fillText(Figures.step(last), plotX() + Math.max(cellsWidth(), 60), y);
        g.setTextAlign(TextAlignment.CENTER);
        g.fillText("update ratio per layer", plotX() + plotWidth() / 2, y);
    }

    /** The image the cells were last drawn from (for tests): one pixel per drawn column and per layer. */
    WritableImage cells() {
        return image;
    }

    int shownPixels() {
        return shownPixels;
    }
}
