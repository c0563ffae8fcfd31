package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;

import javafx.beans.binding.Bindings;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** The app-tab seam (issue 34): a new tab is one class and one line in the registry, and the real window shows it. */
class OneClassPlusOneLineTabTest extends WindowTest {

    /** The one class: a tab that shows the open config's file name, from the window's own document. */
    static final class ConfigNameTab implements AppTab {
        int built;

        @Override
        public String title() {
            return "Name";
        }

        @Override
        public Node content(TabContext context) {
            built++;
            Label name = new Label();
            name.setId("config-name");
            name.textProperty()
                    .bind(Bindings.createStringBinding(
                            () -> context.document().fileProperty().get() == null
                                    ? "untitled"
                                    : context.document()
                                            .fileProperty()
                                            .get()
                                            .getFileName()
                                            .toString(),
                            context.document().fileProperty()));
            return name;
        }
    }

    private final ConfigNameTab added = new ConfigNameTab();

    {
        // the one line
        fixture.tabs = AppTabs.standard().with(added);
    }

    @Test
    void anAddedTabIsInTheWindowAndBuiltWhenFirstChosen(FxRobot robot) {
        WindowFixture.waitUntil(
                "the sample to load", () -> window.document().fileProperty().get() != null);
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        assertThat(onFx(() -> tabs.getTabs().stream().map(Tab::getText).toList()))
                .containsExactly("Config", "JSON", "Devices", "NCCL", "Runs", "Queue", "Sweeps", "Name");
        assertThat(onFx(() -> tabs.getTabs().get(7).getId())).isEqualTo("tab-name");
        assertThat(added.built).isZero();

        robot.interact(() -> tabs.getSelectionModel().select(7));
        robot.interact(() -> tabs.getSelectionModel().select(0));
        robot.interact(() -> tabs.getSelectionModel().select(7));
        assertThat(added.built).isOne();
        Label name = robot.lookup("#config-name").queryAs(Label.class);
        assertThat(onFx(name::getText))
                .isEqualTo(window.document().fileProperty().get().getFileName().toString());
        assertThat(onFx(() -> name.getScene() == window.scene())).isTrue();
    }
}
