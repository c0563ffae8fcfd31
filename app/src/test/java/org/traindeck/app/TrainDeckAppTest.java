package org.traindeck.app;

import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.engine.Version;

import static org.assertj.core.api.Assertions.assertThat;

/** The real window in a real (headless) JavaFX scene. */
@ExtendWith(ApplicationExtension.class)
class TrainDeckAppTest {

    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        new TrainDeckApp().start(stage);
    }

    @Test
    void theWindowShowsTheEngineVersion(FxRobot robot) {
        Label version = robot.lookup("#engine-version").queryAs(Label.class);

        assertThat(version.getText()).isEqualTo("Engine " + Version.get());
        assertThat(Version.get()).isNotEqualTo("dev");
        assertThat(stage.isShowing()).isTrue();
        assertThat(stage.getTitle()).startsWith("TrainDeck");
    }
}
