package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.geometry.BoundingBox;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.ComboBoxBase;
import javafx.scene.control.Control;
import javafx.scene.control.Labeled;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TextInputControl;
import javafx.scene.control.TreeTableView;
import javafx.scene.control.TreeView;
import javafx.stage.Stage;
import org.jfree.chart.fx.ChartViewer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.testfx.api.FxRobot;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Nothing is cut off at the usual laptop sizes: on every tab of both sides, every visible control lies inside its
 * parent and inside the window. Content that scrolls (scroll panes, lists, tables, text areas) is the one place where
 * overflowing is meant, so the walk stops at those.
 */
class NothingClippedTest extends WindowTest {

    /** Sub-pixel rounding of snapped layouts. */
    private static final double SLACK = 1.5;

    /** At the window's first layout, and with the divider dragged as far to either side as it goes. */
    @ParameterizedTest(name = "{0}x{1}, divider at {2}")
    @CsvSource({
        "1280, 800, -1",
        "1280, 800, 0.05",
        "1280, 800, 0.95",
        "1360, 860, -1",
        "1360, 860, 0.05",
        "1360, 860, 0.95"
    })
    void everyTabFitsTheWindow(double width, double height, double divider, FxRobot robot) {
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        robot.interact(() -> {
            Stage stage = (Stage) window.scene().getWindow();
            stage.setWidth(width);
            stage.setHeight(height);
        });
        WaitForAsyncUtils.waitForFxEvents();
        if (divider >= 0) {
            SplitPane split = robot.lookup("#main-split").queryAs(SplitPane.class);
            robot.interact(() -> split.setDividerPosition(0, divider));
            WaitForAsyncUtils.waitForFxEvents();
        }
        List<String> clipped = new ArrayList<>();
        TabPane config = robot.lookup("#config-tabs").queryAs(TabPane.class);
        TabPane dashboard = robot.lookup("#charts-or-layers").queryAs(TabPane.class);
        for (Tab side : dashboard.getTabs()) {
            robot.interact(() -> dashboard.getSelectionModel().select(side));
            for (Tab tab : config.getTabs()) {
                robot.interact(() -> config.getSelectionModel().select(tab));
                WaitForAsyncUtils.waitForFxEvents();
                robot.interact(() -> window.scene().getRoot().layout());
                String where = tab.getText() + " + " + side.getText();
                clipped.addAll(onFx(() -> clippedControls(window.scene().getRoot(), where)));
            }
        }
        assertThat(clipped).as("controls cut off at %.0fx%.0f", width, height).isEmpty();
    }

    /** A dragged divider stays where the user left it, in the next window too. */
    @Test
    void theDividersAreWhereTheUserLeftThem(FxRobot robot) throws Exception {
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        SplitPane main = robot.lookup("#main-split").queryAs(SplitPane.class);
        SplitPane messages = robot.lookup("#dashboard-split").queryAs(SplitPane.class);
        robot.interact(() -> {
            main.setDividerPosition(0, 0.31);
            messages.setDividerPosition(0, 0.7);
        });
        WaitForAsyncUtils.waitForFxEvents();
        double[] left = onFx(() -> new double[] {main.getDividerPositions()[0], messages.getDividerPositions()[0]});
        robot.interact(window::close);

        FxToolkit.setupStage(stage -> window = fixture.open(stage, null));
        WaitForAsyncUtils.waitForFxEvents();
        SplitPane main2 = robot.lookup("#main-split").queryAs(SplitPane.class);
        SplitPane messages2 = robot.lookup("#dashboard-split").queryAs(SplitPane.class);
        assertThat(main2).isNotSameAs(main);
        assertThat(onFx(() -> main2.getDividerPositions()[0])).isCloseTo(left[0], within(0.01));
        assertThat(onFx(() -> messages2.getDividerPositions()[0])).isCloseTo(left[1], within(0.01));
    }

    static List<String> clippedControls(Parent root, String where) {
        List<String> out = new ArrayList<>();
        Bounds windowBounds = new BoundingBox(
                0, 0, root.getScene().getWidth(), root.getScene().getHeight());
        walk(root, windowBounds, where, out);
        return out;
    }

    private static void walk(Parent parent, Bounds windowBounds, String where, List<String> out) {
        Bounds parentBounds = parent.localToScene(parent.getLayoutBounds());
        for (Node child : parent.getChildrenUnmodifiable()) {
            if (!child.isVisible() || child.getOpacity() == 0) {
                continue;
            }
            Bounds b = child.localToScene(child.getLayoutBounds());
            if (child instanceof Control && b.getWidth() > 0 && b.getHeight() > 0) {
                if (!inside(b, parentBounds)) {
                    out.add(describe(child, where) + " leaves its parent " + describe(parent, where) + ": " + box(b)
                            + " outside " + box(parentBounds));
                } else if (!inside(b, windowBounds)) {
                    out.add(describe(child, where) + " leaves the window: " + box(b));
                }
            }
            if (child instanceof Parent p && !scrolls(child)) {
                walk(p, windowBounds, where, out);
            }
        }
    }

    /** Containers whose content is meant to be larger than they are (or drawn by their own code). */
    private static boolean scrolls(Node n) {
        return n instanceof ScrollPane
                || n instanceof ListView
                || n instanceof TableView
                || n instanceof TreeView
                || n instanceof TreeTableView
                || n instanceof TextInputControl
                || n instanceof ChartViewer
                || n instanceof ComboBoxBase;
    }

    private static boolean inside(Bounds b, Bounds outer) {
        return b.getMinX() >= outer.getMinX() - SLACK
                && b.getMinY() >= outer.getMinY() - SLACK
                && b.getMaxX() <= outer.getMaxX() + SLACK
                && b.getMaxY() <= outer.getMaxY() + SLACK;
    }

    private static String describe(Node n, String where) {
        String id = n.getId() != null ? "#" + n.getId() : "";
        String text = n instanceof Labeled l && l.getText() != null ? " '" + l.getText() + "'" : "";
        return "[" + where + "] " + n.getClass().getSimpleName() + id + text;
    }

    private static String box(Bounds b) {
        return String.format(
                Locale.ROOT, "(%.0f,%.0f)-(%.0f,%.0f)", b.getMinX(), b.getMinY(), b.getMaxX(), b.getMaxY());
    }
}
