package org.traindeck.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.scrollIntoView;
import static org.traindeck.app.FxWait.waitUntil;

import java.nio.file.Path;
import javafx.scene.Scene;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ScrollPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** Synchronized BatchNorm in the form: ticking it writes parallel.syncBatchNorm, unticking takes it out again. */
@ExtendWith(ApplicationExtension.class)
class SyncBatchNormFormTest {

    private static final String TEXT = """
            {
              "name": "mine",
              "devices": "cpu:2",
              "model": { "type": "lenet", "batchNorm": true },
              "data": { "train": { "type": "synthetic", "samples": 200, "imageShape": [8, 8, 1] } },
              "stages": [ { "epochs": 1 } ]
            }
            """;

    private ConfigDocument document;

    @Start
    void start(Stage stage) {
        document = new ConfigDocument(Path.of("").toAbsolutePath());
        document.load(TEXT, null);
        stage.setScene(new Scene(new ScrollPane(new ConfigForm(document)), 600, 700));
        stage.show();
    }

    @AfterEach
    void tearDown() {
        document.shutdown();
    }

    @Test
    void theBoxTurnsTheRunSwitchOnAndOff(FxRobot robot) {
        CheckBox box =
                robot.lookup("#field-synchronized-batchnorm-across-devices").queryAs(CheckBox.class);
        assertThat(onFx(box::isSelected)).isFalse();
        robot.interact(() -> scrollIntoView(box));
        robot.clickOn(box);
        waitUntil(
                "the switch in the text",
                () -> JsonTree.get(JsonTree.parse(document.text()), "parallel.syncBatchNorm") != null);
        assertThat(onFx(() -> JsonTree.get(JsonTree.parse(document.text()), "parallel.syncBatchNorm")
                        .booleanValue()))
                .isTrue();

        robot.clickOn(box);
        waitUntil(
                "no switch in the text",
                () -> JsonTree.get(JsonTree.parse(document.text()), "parallel.syncBatchNorm") == null);
        assertThat(onFx(document::text)).doesNotContain("syncBatchNorm");
    }
}
