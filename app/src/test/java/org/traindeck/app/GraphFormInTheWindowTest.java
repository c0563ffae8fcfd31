package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.scrollIntoView;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** A graph config's Model section summarises its layers; its Edit in JSON button takes the user to the JSON tab. */
class GraphFormInTheWindowTest extends WindowTest {

    @Test
    void editInJsonSelectsTheJsonTab(FxRobot robot) {
        fixture.dialogs.toOpen = WindowFixture.repoRoot().resolve("sample-configs/digits-graph.json");
        robot.clickOn("#open");
        waitUntil(
                "the graph's summary",
                () -> robot.lookup("#field-layers")
                        .tryQuery()
                        .map(n -> ((Label) n).getText().startsWith("8 entries: conv1 (conv2d)"))
                        .orElse(false));
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        assertThat(onFx(() -> tabs.getSelectionModel().getSelectedItem().getText()))
                .isEqualTo("Config");
        robot.interact(() -> scrollIntoView(robot.lookup("#edit-in-json").query()));
        robot.clickOn("#edit-in-json");
        waitUntil(
                "the JSON tab",
                () -> tabs.getSelectionModel().getSelectedItem().getText().equals("JSON"));
    }
}
