package org.traindeck.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.scrollIntoView;
import static org.traindeck.app.FxWait.waitUntil;

import java.nio.file.Path;
import javafx.scene.Scene;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The stage's weight average in the form: a value turns it on, clearing the values turns it off again. */
@ExtendWith(ApplicationExtension.class)
class EmaFormTest {

    private static final String TEXT = """
            {
              "name": "mine",
              "model": { "type": "mlp", "hidden": [8] },
              "data": { "train": { "type": "synthetic", "samples": 200, "features": 4 } },
              "stages": [ { "epochs": 3 } ]
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

    private void typeInto(FxRobot robot, String id, String text) {
        TextField field = robot.lookup(id).queryAs(TextField.class);
        robot.interact(() -> scrollIntoView(field));
        robot.clickOn(field);
        robot.interact(field::selectAll);
        if (text.isEmpty()) {
            robot.interact(field::clear);
        } else {
            robot.write(text);
        }
    }

    @Test
    void aDecayTurnsTheAverageOnAndClearingItTurnsItOff(FxRobot robot) {
        assertThat(onFx(() -> robot.lookup("#field-weight-average-ema-decay")
                        .queryAs(TextField.class)
                        .getPromptText()))
                .isEqualTo("0.999");

        typeInto(robot, "#field-weight-average-ema-decay", "0.99");
        waitUntil(
                "the average in the text",
                () -> JsonTree.get(JsonTree.parse(document.text()), "stages[0].ema.decay") != null);
        assertThat(onFx(() -> JsonTree.get(JsonTree.parse(document.text()), "stages[0].ema.decay")
                        .doubleValue()))
                .isEqualTo(0.99);

        typeInto(robot, "#field-weight-average-ema-decay", "");
        waitUntil(
                "no average in the text", () -> JsonTree.get(JsonTree.parse(document.text()), "stages[0].ema") == null);
        assertThat(onFx(document::text)).doesNotContain("ema");
    }
}
