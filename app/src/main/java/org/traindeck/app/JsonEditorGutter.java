package org.traindeck.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javafx.geometry.Bounds;
import javafx.geometry.Point2D;
import javafx.geometry.VPos;
import javafx.scene.Group;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextArea;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Region;
import javafx.scene.shape.Rectangle;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.util.Duration;
import org.traindeck.engine.config.ConfigProblem;

/**
 * Line numbers beside a {@link TextArea}, with a mark on each line a problem is on (its message as the mark's tooltip).
 * It draws only the lines in view, placed where the area's own text lies, so it follows scrolling and the font.
 * Numbers and marks are {@link Text} nodes: a line half scrolled out is meant to be cut by the gutter's clip.
 */
final class JsonEditorGutter extends Region {

    static final String MARK_ERROR = "json-gutter-error";
    static final String MARK_WARNING = "json-gutter-warning";
    private static final double PAD = 4;

    private final TextArea area;
    private final Rectangle clip = new Rectangle();
    private final List<Text> numbers = new ArrayList<>();
    private final List<Text> marks = new ArrayList<>();
    private Map<Integer, List<ConfigProblem>> problemsByLine = Map.of();
    private int lineCount = 1;
    private Text followed;
    private Font measuredFont;
    private double digitWidth;
    private double markWidth;

    JsonEditorGutter(TextArea area) {
        this.area = area;
        setId("json-gutter");
        getStyleClass().add("json-gutter");
        setClip(clip);
        setMinWidth(Region.USE_PREF_SIZE);
        lineCount = countLines(area.getText());
        area.textProperty().addListener((o, a, b) -> {
            lineCount = countLines(b);
            requestLayout();
        });
        area.scrollTopProperty().addListener(o -> requestLayout());
        area.fontProperty().addListener(o -> requestLayout());
        // the area's skin lays its text out after we do: follow where its text node ends up
        area.skinProperty().addListener(o -> requestLayout());
        area.heightProperty().addListener(o -> requestLayout());
    }

    /** Marks the lines these problems are on; problems without a line are left to the status line. */
    void showProblems(List<ConfigProblem> problems) {
        problemsByLine = problems.stream()
                .filter(ConfigProblem::hasPosition)
                .collect(Collectors.groupingBy(ConfigProblem::line, TreeMap::new, Collectors.toList()));
        requestLayout();
    }

    /** The 1-based lines that carry a mark now, for tests and the status line alike. */
    List<Integer> markedLines() {
        return List.copyOf(problemsByLine.keySet());
    }

    @Override
    protected double computePrefWidth(double height) {
        measure();
        int digits = Math.max(2, Integer.toString(lineCount).length());
        return snappedLeftInset() + PAD + markWidth + PAD + digits * digitWidth + PAD + snappedRightInset();
    }

    @Override
    protected void layoutChildren() {
        measure();
        Text areaText = paragraphText(area);
        Node viewport = viewport(area);
        if (areaText != null && areaText != followed) {
            // the area may lay its text out after us in a pulse: lay out again wherever it moves to
            areaText.localToSceneTransformProperty().addListener(o -> requestLayout());
            followed = areaText;
        }
        if (areaText == null || viewport == null || getScene() == null) {
            hideFrom(0);
            return;
        }
        Bounds view = sceneToLocal(viewport.localToScene(viewport.getLayoutBounds()));
        Point2D top =
                sceneToLocal(areaText.localToScene(0, areaText.getLayoutBounds().getMinY()));
        // the skin's text snaps its lines: their height is its own, not the font's nominal one
        double lineHeight = areaText.getLayoutBounds().getHeight() / countLines(areaText.getText());
        if (!(lineHeight > 0)) {
            hideFrom(0);
            return;
        }
        clip.setX(0);
        clip.setY(view.getMinY());
        clip.setWidth(getWidth());
        clip.setHeight(Math.max(0, view.getHeight()));
        int first = Math.max(0, (int) Math.floor((view.getMinY() - top.getY()) / lineHeight));
        int last = Math.min(lineCount - 1, (int) Math.ceil((view.getMaxY() - top.getY()) / lineHeight));
        int shown = 0;
        for (int line = first; line <= last; line++, shown++) {
            double y = top.getY() + line * lineHeight;
            Text number = pooled(numbers, shown, "json-gutter-number");
            number.setText(Integer.toString(line + 1));
            number.setLayoutX(getWidth()
                    - snappedRightInset()
                    - PAD
                    - number.getLayoutBounds().getWidth());
            number.setLayoutY(y);
            number.setVisible(true);
            Text mark = pooled(marks, shown, "json-gutter-mark");
            List<ConfigProblem> here = problemsByLine.get(line + 1);
            if (here == null) {
                mark.setVisible(false);
                mark.setId(null);
            } else {
                boolean error = here.stream().anyMatch(ConfigProblem::isError);
                mark.setText(error ? "✖" : "⚠");
                mark.getStyleClass().setAll("json-gutter-mark", error ? MARK_ERROR : MARK_WARNING);
                mark.setId("json-gutter-mark-" + (line + 1));
                tooltipOf(mark)
                        .setText(here.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
                mark.setLayoutX(snappedLeftInset() + PAD);
                mark.setLayoutY(y);
                mark.setVisible(true);
            }
        }
        hideFrom(shown);
    }

    private void hideFrom(int index) {
        for (int i = index; i < numbers.size(); i++) {
            numbers.get(i).setVisible(false);
            marks.get(i).setVisible(false);
            marks.get(i).setId(null);
        }
    }

    private Text pooled(List<Text> pool, int index, String styleClass) {
        while (pool.size() <= index) {
            Text t = new Text();
            t.getStyleClass().add(styleClass);
            t.setTextOrigin(VPos.TOP);
            t.setManaged(false);
            pool.add(t);
            getChildren().add(t);
        }
        Text t = pool.get(index);
        t.setFont(area.getFont());
        return t;
    }

    private static Tooltip tooltipOf(Text mark) {
        Object t = mark.getProperties().get(Tooltip.class);
        if (t instanceof Tooltip tip) {
            return tip;
        }
        Tooltip tip = new Tooltip();
        tip.setShowDelay(Duration.millis(200));
        Tooltip.install(mark, tip);
        mark.getProperties().put(Tooltip.class, tip);
        return tip;
    }

    /** Glyph widths of the area's font, measured as a {@link Text} lays them out. */
    private void measure() {
        Font font = area.getFont();
        if (font.equals(measuredFont)) {
            return;
        }
        Text probe = new Text("0");
        probe.setFont(font);
        digitWidth = probe.getLayoutBounds().getWidth();
        probe.setText("✖");
        markWidth = probe.getLayoutBounds().getWidth();
        measuredFont = font;
    }

    static int countLines(String text) {
        if (text == null) {
            return 1;
        }
        int n = 1;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    /** The text node the area's skin draws its paragraph with (inside a group, unlike the prompt). */
    private static Text paragraphText(Parent p) {
        for (Node n : p.getChildrenUnmodifiable()) {
            if (n instanceof Text t && p instanceof Group) {
                return t;
            }
            if (n instanceof Parent child) {
                Text found = paragraphText(child);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private static Node viewport(TextArea area) {
        Node sp = area.lookup(".scroll-pane");
        return sp instanceof ScrollPane ? sp.lookup(".viewport") : null;
    }
}
