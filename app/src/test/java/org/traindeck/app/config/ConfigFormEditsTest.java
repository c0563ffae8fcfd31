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

/** A form edit changes that value's text in the JSON and nothing else; the raw text's edits reach the form. */
@ExtendWith(ApplicationExtension.class)
class ConfigFormEditsTest {

    private static final String TEXT = """
            {
              "name": "mine",
              "model": { "type": "mlp", "hidden": [128, 64] },
              "data": { "train": { "type": "synthetic", "samples": 200, "features": 4 } },
              "stages": [ { "epochs": 3, "batchSize": 20, "optimizer": { "type": "adam", "learningRate": 0.00005 } } ]
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
        robot.write(text);
    }

    @Test
    void editingOneFieldKeepsTheRestOfTheTextAsTyped(FxRobot robot) {
        assertThat(onFx(() -> robot.lookup("#field-learning-rate")
                        .queryAs(TextField.class)
                        .getText()))
                .isEqualTo("0.00005");
        typeInto(robot, "#field-run-name", "yours");
        waitUntil("the name in the text", () -> document.text().contains("\"yours\""));
        assertThat(onFx(document::text)).isEqualTo(TEXT.replace("\"mine\"", "\"yours\""));
        assertThat(onFx(document::isDirty)).isTrue();

        typeInto(robot, "#field-learning-rate", "0.0002");
        waitUntil("the rate in the text", () -> document.text().contains("0.0002 "));
        assertThat(onFx(document::text))
                .isEqualTo(TEXT.replace("\"mine\"", "\"yours\"").replace("0.00005", "0.0002"));
    }

    @Test
    void aValueTheTextLacksIsAddedToIt(FxRobot robot) {
        typeInto(robot, "#field-seed", "11");
        waitUntil("the seed in the text", () -> document.text().contains("\"seed\": 11"));
        assertThat(onFx(() -> JsonTree.get(JsonTree.parse(document.text()), "stages[0].optimizer.learningRate")
                        .decimalValue()))
                .isEqualByComparingTo("0.00005");
    }

    @Test
    void theRawTextReachesTheForm(FxRobot robot) {
        robot.interact(() -> document.textProperty().set(TEXT.replace("\"batchSize\": 20", "\"batchSize\": 64")));
        waitUntil(
                "the batch size in the form",
                () -> robot.lookup("#field-batch-size-per-device")
                        .queryAs(TextField.class)
                        .getText()
                        .equals("64"));
    }

    @Test
    void aStageIsAddedAndRemovedAsTextTheRestStayingAsTyped(FxRobot robot) {
        String stage =
                "{ \"epochs\": 3, \"batchSize\": 20, \"optimizer\": { \"type\": \"adam\", \"learningRate\": 0.00005 } }";
        String copy = stage.substring(0, stage.length() - 2) + ", \"name\": \"stage2\" }";
        // the stage row is below the fold of a 700-pixel form: a user scrolls to it first
        robot.interact(() -> scrollIntoView(robot.lookup("#add-stage").query()));
        robot.clickOn("#add-stage");
        waitUntil("the second stage in the text", () -> document.text().contains("stage2"));
        assertThat(onFx(document::text)).isEqualTo(TEXT.replace(stage + " ]", stage + ", " + copy + " ]"));
        robot.interact(() -> scrollIntoView(robot.lookup("#remove-stage").query()));
        robot.clickOn("#remove-stage");
        waitUntil("the second stage out of the text", () -> !document.text().contains("stage2"));
        assertThat(onFx(document::text)).isEqualTo(TEXT);
    }
}
