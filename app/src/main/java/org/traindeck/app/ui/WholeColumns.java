package org.traindeck.app.ui;

import java.util.Set;
import java.util.function.Function;
import javafx.collections.ListChangeListener;
import javafx.scene.Node;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.text.Font;
import javafx.scene.text.Text;

/**
 * Keeps a table's column titles, and the cells of the columns asked for, whole: each column is at least as wide as
 * its title (and those cells) in the table's own font, so a narrow pane scrolls the table sideways instead of cutting
 * "Status" to "St…". Widths are worked out again when the table is laid out at a new width and when its rows change.
 */
public final class WholeColumns {

    /** A cell's and a header's padding, and a header's sort arrow. */
    private static final double PADDING = 26;
    /** More rows than this are not measured: a long table scrolls anyway. */
    private static final int MAX_ROWS = 500;

    private WholeColumns() {}

    /**
     * @param cellsOf the columns whose cells are kept whole too, and how each cell reads; columns not in it keep
     *     only their titles whole
     */
    public static <S> void keep(TableView<S> table, Function<TableColumn<S, ?>, Function<S, String>> cellsOf) {
        Runnable fit = () -> fit(table, cellsOf);
        table.widthProperty().addListener((o, a, b) -> fit.run());
        table.itemsProperty().addListener((o, a, b) -> fit.run());
        table.getItems().addListener((ListChangeListener<S>) c -> fit.run());
        table.getColumns().addListener((ListChangeListener<TableColumn<S, ?>>) c -> fit.run());
        // a title that changes (named by the metric its column holds) is kept whole too
        table.getColumns().forEach(c -> c.textProperty().addListener((o, a, b) -> fit.run()));
    }

    /** Titles only. */
    public static <S> void keepTitles(TableView<S> table) {
        keep(table, c -> null);
    }

    private static <S> void fit(TableView<S> table, Function<TableColumn<S, ?>, Function<S, String>> cellsOf) {
        Font font = headerFont(table);
        for (TableColumn<S, ?> column : table.getColumns()) {
            double w = width(column.getText(), font);
            Function<S, String> cell = cellsOf.apply(column);
            if (cell != null) {
                int n = Math.min(MAX_ROWS, table.getItems().size());
                for (int i = 0; i < n; i++) {
                    w = Math.max(w, width(cell.apply(table.getItems().get(i)), font));
                }
            }
            double min = Math.ceil(w + PADDING);
            if (column.getMinWidth() != min) {
                column.setMinWidth(min);
                if (column.getPrefWidth() < min) {
                    column.setPrefWidth(min);
                }
            }
        }
    }

    /** The font the table's headers are drawn in (the theme sets it); the default font before they exist. */
    private static Font headerFont(TableView<?> table) {
        Set<Node> labels = table.lookupAll(".column-header .label");
        for (Node n : labels) {
            if (n instanceof Labeled l) {
                return l.getFont();
            }
        }
        return Font.getDefault();
    }

    private static double width(String s, Font font) {
        if (s == null || s.isEmpty()) {
            return 0;
        }
        Text t = new Text(s);
        t.setFont(font);
        return t.getLayoutBounds().getWidth();
    }
}
