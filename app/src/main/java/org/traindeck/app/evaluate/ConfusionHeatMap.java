package org.traindeck.app.evaluate;

import java.util.List;
import java.util.Locale;
import javafx.geometry.HPos;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.VBox;
import javafx.scene.text.Text;

/**
 * The confusion matrix as a heat map with its counts: rows the true class, columns the predicted one, each cell
 * shaded by its share of its row (so a small class's mistakes show as clearly as a large one's).
 */
final class ConfusionHeatMap extends VBox {

    /** Wider matrices are unreadable as cells: their counts stay in evaluation.json. */
    static final int MAX_CLASSES = 40;

    private final GridPane grid = new GridPane();
    private final Label note = new Label();

    ConfusionHeatMap() {
        super(4);
        setId("evaluation-confusion");
        grid.setId("evaluation-confusion-grid");
        grid.setHgap(1);
        grid.setVgap(1);
        note.setId("evaluation-confusion-note");
        note.setWrapText(true);
        getChildren().addAll(note, grid);
    }

    /** @param matrix null: no matrix for this task */
    void show(List<List<Long>> matrix, List<String> names) {
        grid.getChildren().clear();
        if (matrix == null) {
            note.setText("");
            setVisible(false);
            setManaged(false);
            return;
        }
        setVisible(true);
        setManaged(true);
        if (matrix.size() > MAX_CLASSES) {
            note.setText("Confusion matrix: " + matrix.size()
                    + " classes, too many to draw; their counts are in evaluation.json.");
            return;
        }
        note.setText(
                "Confusion matrix: rows are the true class, columns the predicted one; shade is the share of the row.");
        Label corner = new Label("true \\ predicted");
        corner.getStyleClass().add("confusion-axis");
        grid.add(corner, 0, 0);
        for (int j = 0; j < matrix.size(); j++) {
            Label head = new Label(names.get(j));
            head.getStyleClass().add("confusion-axis");
            GridPane.setHalignment(head, HPos.CENTER);
            grid.add(head, j + 1, 0);
        }
        for (int i = 0; i < matrix.size(); i++) {
            Label rowName = new Label(names.get(i));
            rowName.getStyleClass().add("confusion-axis");
            grid.add(rowName, 0, i + 1);
            long total = matrix.get(i).stream().mapToLong(Long::longValue).sum();
            for (int j = 0; j < matrix.size(); j++) {
                long count = matrix.get(i).get(j);
                double share = total == 0 ? 0 : (double) count / total;
                grid.add(cell(count, share, names.get(i), names.get(j), i, j), j + 1, i + 1);
            }
        }
    }

    private static Label cell(long count, double share, String truth, String predicted, int row, int column) {
        boolean diagonal = row == column;
        Label c = new Label(String.valueOf(count));
        c.getStyleClass().add("confusion-cell");
        c.setId("confusion-" + row + "-" + column);
        c.setAlignment(Pos.CENTER);
        double width =
                Math.max(34, new Text(String.valueOf(count)).getLayoutBounds().getWidth() + 10);
        c.setMinSize(width, 24);
        c.setPrefSize(width, 24);
        // a diagonal cell is a right answer: blue; elsewhere mistakes: orange, both deeper with the share
        int r = diagonal ? (int) Math.round(255 - share * (255 - 31)) : (int) Math.round(255 - share * (255 - 230));
        int g = diagonal ? (int) Math.round(255 - share * (255 - 119)) : (int) Math.round(255 - share * (255 - 85));
        int b = diagonal ? (int) Math.round(255 - share * (255 - 180)) : (int) Math.round(255 - share * (255 - 13));
        c.setStyle(String.format(
                Locale.ROOT,
                "-fx-background-color: rgb(%d,%d,%d); -fx-text-fill: %s;",
                r,
                g,
                b,
                share > 0.55 ? "white" : "black"));
        c.setTooltip(new Tooltip(String.format(
                Locale.ROOT,
                "true %s, predicted %s: %,d (%.1f %% of %s)",
                truth,
                predicted,
                count,
                100 * share,
                truth)));
        return c;
    }
}
