package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextArea;
import javafx.scene.control.Tooltip;
import javafx.scene.shape.MoveTo;
import javafx.scene.text.Text;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;

/** The JSON tab numbers its lines and marks the line a problem is on, with the message; fixing it clears the mark. */
class JsonEditorGutterTest extends WindowTest {

    private static final int EPOCHS_LINE = 26;

    private static List<String> shownNumbers(FxRobot robot) {
        return onFx(
                () -> robot.lookup("#json-gutter").queryAs(JsonEditorGutter.class).getChildrenUnmodifiable().stream()
                        .filter(n -> n.isVisible() && n.getStyleClass().contains("json-gutter-number"))
                        .map(n -> ((Text) n).getText())
                        .toList());
    }

    private static Node visibleMark(FxRobot robot, int line) {
        return onFx(() -> robot.lookup("#json-gutter-mark-" + line)
                .tryQuery()
                .filter(Node::isVisible)
                .orElse(null));
    }

    private static Text textShowing(Parent p, String text) {
        for (Node n : p.getChildrenUnmodifiable()) {
            if (n instanceof Text t && text.equals(t.getText())) {
                return t;
            }
            if (n instanceof Parent child && textShowing(child, text) != null) {
                return textShowing(child, text);
            }
        }
        return null;
    }

    /** Scrolled sideways, the code slides under nothing: every number stays left of where the area shows text. */
    @Test
    void lineNumbersStayClearOfTheCodeWhenItScrollsSideways(FxRobot robot, @TempDir Path dir) throws IOException {
        String config = Files.readString(WindowFixture.repoRoot().resolve("sample-configs/digits-mlp.json"))
                .replace("\"name\": \"digits-mlp\"", "\"name\": \"digits-mlp-" + "x".repeat(300) + "\"");
        fixture.dialogs.toOpen = Files.writeString(dir.resolve("wide.json"), config);
        robot.clickOn("#open");
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(1));
        TextArea json = robot.lookup("#json-editor").queryAs(TextArea.class);
        waitUntil("the wide config in the editor", () -> onFx(json::getText).contains("xxxx"));
        waitUntil("line numbers from 1", () -> shownNumbers(robot).containsAll(List.of("1", "2", "3")));

        robot.interact(() -> json.setScrollLeft(Double.MAX_VALUE));
        waitUntil("the area scrolled sideways", () -> onFx(json::getScrollLeft) > 100);
        double[] edges = onFx(() -> {
            Node viewport = json.lookup(".scroll-pane").lookup(".viewport");
            JsonEditorGutter gutter = robot.lookup("#json-gutter").queryAs(JsonEditorGutter.class);
            double numbersRight = gutter.getChildrenUnmodifiable().stream()
                    .filter(n -> n.isVisible() && n instanceof Text)
                    .mapToDouble(n -> n.localToScene(n.getBoundsInLocal()).getMaxX())
                    .max()
                    .orElse(Double.NaN);
            // what of the gutter is painted: its clip, in the scene
            double paintedRight =
                    gutter.localToScene(gutter.getClip().getBoundsInParent()).getMaxX();
            return new double[] {
                Math.min(numbersRight, paintedRight),
                viewport.localToScene(viewport.getLayoutBounds()).getMinX(),
                numbersRight
            };
        });
        assertThat(edges[2]).as("numbers are shown").isNotNaN();
        assertThat(edges[0])
                .as("the numbers' right edge against the code's left edge")
                .isLessThanOrEqualTo(edges[1]);
        assertThat(shownNumbers(robot)).contains("1", "2");
    }

    @Test
    void aMistakeIsMarkedOnItsLineWithItsMessageAndFixingItClearsTheMark(FxRobot robot, @TempDir Path dir)
            throws IOException {
        Path data =
                WindowFixture.repoRoot().resolve("data/digits/digits.csv.gz").toAbsolutePath();
        String config = Files.readString(WindowFixture.repoRoot().resolve("sample-configs/digits-mlp.json"))
                .replace("../data/digits/digits.csv.gz", data.toString().replace("\\", "/"))
                .replace("\"epochs\": 15", "\"epochs\": 0");
        assertThat(config.lines().toList().get(EPOCHS_LINE - 1)).contains("\"epochs\": 0");
        Path file = Files.writeString(dir.resolve("broken.json"), config);
        fixture.dialogs.toOpen = file;
        robot.clickOn("#open");
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(1));
        TextArea json = robot.lookup("#json-editor").queryAs(TextArea.class);
        waitUntil("the broken config in the editor", () -> onFx(json::getText).contains("\"epochs\": 0"));

        // at the top, the first lines are numbered
        waitUntil("line numbers from 1", () -> shownNumbers(robot).containsAll(List.of("1", "2", "3")));

        // scrolled to the end, the gutter follows: the last line's number and the mistake's mark are in view
        robot.interact(() -> json.setScrollTop(Double.MAX_VALUE));
        waitUntil("the mark on the epochs line", () -> visibleMark(robot, EPOCHS_LINE) != null);
        assertThat(shownNumbers(robot)).contains("33", String.valueOf(EPOCHS_LINE));
        Node mark = visibleMark(robot, EPOCHS_LINE);
        assertThat(mark.getStyleClass()).contains(JsonEditorGutter.MARK_ERROR);
        Node number = onFx(() ->
                robot.lookup("#json-gutter").queryAs(JsonEditorGutter.class).getChildrenUnmodifiable().stream()
                        .filter(n -> n.isVisible()
                                && n instanceof Text t
                                && t.getText().equals(String.valueOf(EPOCHS_LINE)))
                        .findFirst()
                        .orElseThrow());
        assertThat(onFx(number::getLayoutY))
                .as("the mark sits on its number's line")
                .isEqualTo(onFx(mark::getLayoutY));
        double[] tops = onFx(() -> {
            // where the area itself draws the mistake's line: the top of its caret there
            Text areaText = textShowing(json, json.getText());
            MoveTo caretTop = (MoveTo) areaText.caretShape(json.getText().indexOf("\"epochs\": 0"), true)[0];
            return new double[] {
                areaText.localToScene(0, caretTop.getY()).getY(),
                number.localToScene(0, number.getLayoutBounds().getMinY()).getY()
            };
        });
        assertThat(tops[1]).as("the number's top against its line's top").isCloseTo(tops[0], within(2.0));
        Tooltip tip = onFx(() -> (Tooltip) mark.getProperties().get(Tooltip.class));
        assertThat(onFx(tip::getText)).contains("stages[0].epochs", "line " + EPOCHS_LINE);
        assertThat(onFx(() -> robot.lookup("#json-gutter")
                        .queryAs(JsonEditorGutter.class)
                        .markedLines()))
                .containsExactly(EPOCHS_LINE);

        // fixed: the mark goes
        robot.interact(() -> {
            int at = json.getText().indexOf("\"epochs\": 0");
            json.replaceText(at, at + "\"epochs\": 0".length(), "\"epochs\": 15");
        });
        waitUntil(
                "the mark to go",
                () -> visibleMark(robot, EPOCHS_LINE) == null
                        && onFx(() -> robot.lookup("#json-gutter")
                                        .queryAs(JsonEditorGutter.class)
                                        .markedLines())
                                .isEmpty());
        assertThat(shownNumbers(robot)).contains(String.valueOf(EPOCHS_LINE));
    }
}
