package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.util.List;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * The first window builds only what it shows before its first paint (start-up, issue 24): the other tabs are built
 * when first chosen, and then show the state they would have shown had they been there all along.
 */
class FirstWindowTest extends WindowTest {

    @Test
    void tabsOtherThanConfigAreBuiltWhenFirstChosen(FxRobot robot) {
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        List<String> built = onFx(() -> tabs.getTabs().stream()
                .filter(t -> t.getContent() != null)
                .map(Tab::getText)
                .toList());
        assertThat(built).containsExactly("Config");

        robot.interact(() -> tabs.getSelectionModel().select(1));
        // built after the config was checked: the verdict is there at once, not at the next edit
        assertThat(onFx(() -> robot.lookup("#json-status").queryAs(Label.class).getText()))
                .isNotEmpty();
        robot.interact(() -> tabs.getSelectionModel().select(4));
        assertThat(robot.lookup("#runs-view").tryQuery()).isPresent();
        assertThat(onFx(() -> tabs.getTabs().stream()
                        .filter(t -> t.getContent() != null)
                        .map(Tab::getText)
                        .toList()))
                .containsExactly("Config", "JSON", "Runs");
    }
}
