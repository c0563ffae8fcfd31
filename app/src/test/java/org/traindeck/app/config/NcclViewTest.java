package org.traindeck.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.scrollIntoView;

import java.nio.file.Path;
import java.util.List;
import javafx.scene.Scene;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.engine.api.devices.NcclReport;

/** The NCCL view model and view: toggles → config, config → toggles, and the badges. */
@ExtendWith(ApplicationExtension.class)
class NcclViewTest {

    private ConfigDocument document;
    private NcclViewModel model;

    @Start
    void start(Stage stage) {
        document = new ConfigDocument(Path.of("").toAbsolutePath());
        document.load("{\"name\": \"n\"}", null);
        model = new NcclViewModel(document);
        stage.setScene(new Scene(new ScrollPane(new NcclPanel(model)), 900, 700));
        stage.show();
    }

    @AfterEach
    void tearDown() {
        document.shutdown();
    }

    private String badge(FxRobot robot, String name) {
        return onFx(
                () -> robot.lookup("#nccl-badge-" + name).queryAs(Label.class).getText());
    }

    @Test
    void aToggleWritesTheConfigAndSaysWhatItWillDo(FxRobot robot) {
        CheckBox p2p = robot.lookup("#nccl-NCCL_P2P_DISABLE").queryAs(CheckBox.class);
        robot.interact(() -> scrollIntoView(p2p));
        robot.clickOn(p2p);
        assertThat(onFx(() ->
                        JsonTree.get(JsonTree.parse(document.text()), "nccl").toString()))
                .isEqualTo("{\"NCCL_P2P_DISABLE\":\"1\"}");
        assertThat(badge(robot, "NCCL_P2P_DISABLE")).isEqualTo("mapped at Start");

        robot.interact(() -> model.setReport(
                new NcclReport(List.of(new NcclReport.Entry(
                        "NCCL_P2P_DISABLE", "1", NcclReport.Status.NEEDS_RESTART, "ND4J was loaded"))),
                true));
        assertThat(badge(robot, "NCCL_P2P_DISABLE")).isEqualTo("needs restart");
    }

    @Test
    void thePresetAndAHandEditShowInTheToggles(FxRobot robot) {
        robot.interact(model::applyContainerPreset);
        for (String name : NcclViewModel.CONTAINER_SAFE) {
            assertThat(onFx(() -> robot.lookup("#nccl-" + name)
                            .queryAs(CheckBox.class)
                            .isSelected()))
                    .as(name)
                    .isTrue();
        }
        assertThat(onFx(document::text)).contains("\"NCCL_IB_DISABLE\"");

        robot.interact(() -> document.textProperty()
                .set("{\"name\": \"n\", \"nccl\": {\"NCCL_DEBUG\": \"WARN\", \"custom\": {\"X\": \"1\"}}}"));
        assertThat(onFx(() -> robot.lookup("#nccl-NCCL_IB_DISABLE")
                        .queryAs(CheckBox.class)
                        .isSelected()))
                .isFalse();
        assertThat(onFx(() -> model.toggle("NCCL_DEBUG").valueProperty().get())).isEqualTo("WARN");
        assertThat(onFx(() -> model.customProperty().get())).isEqualTo("X=1");
        assertThat(badge(robot, "NCCL_DEBUG")).isEqualTo("applied at Start");
        assertThat(badge(robot, "NCCL_IB_DISABLE")).isEmpty();
    }
}
