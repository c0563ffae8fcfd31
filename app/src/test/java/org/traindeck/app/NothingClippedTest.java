package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.util.ArrayList;
import java.util.List;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.testfx.api.FxRobot;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.audit.LayoutAudit;

/**
 * Nothing is cut off at the usual laptop sizes: on every tab of both sides, every visible control lies inside its
 * parent and inside the window ({@link LayoutAudit}, which {@code .ci/check-window.sh} also runs in the real window).
 */
class NothingClippedTest extends WindowTest {

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
                clipped.addAll(
                        onFx(() -> LayoutAudit.clippedControls(window.scene().getRoot(), where)).stream()
                                // a divider dragged to the side may make the charts scroll: nothing is cut off then
                                .filter(c -> divider < 0 || !c.contains("#chart-scroll scrolls"))
                                .toList());
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
}
