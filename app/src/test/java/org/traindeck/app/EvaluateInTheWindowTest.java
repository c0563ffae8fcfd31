package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.control.Label;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;

/** The window's own wiring: Evaluate in the end-of-run summary opens the evaluation window on that run. */
class EvaluateInTheWindowTest extends WindowTest {

    @Test
    void evaluateAfterARunShowsItsFiguresInTheEvaluationWindow(FxRobot robot, @TempDir Path dir) throws Exception {
        Path config = dir.resolve("short.json");
        Files.writeString(config, """
                {"name": "short", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"name": "only", "epochs": 2, "batchSize": 20}]}
                """);
        fixture.dialogs.toOpen = config;
        robot.clickOn("#open");
        waitUntil(
                "the config to load and validate",
                () -> !robot.lookup("#start").query().isDisabled());
        robot.clickOn("#start");
        waitUntil("the run's summary", () -> window.dashboard().summary().shown() != null);

        robot.clickOn("#run-summary-evaluate");

        waitUntil(
                "the evaluation's figures",
                () -> robot.lookup("#evaluation-figure-val-accuracy").tryQuery().isPresent());
        assertThat(onFx(() ->
                        robot.lookup("#evaluation-title").queryAs(Label.class).getText()))
                .contains("short");
        assertThat(onFx(() -> robot.lookup(".confusion-cell").queryAll().size()))
                .isEqualTo(16);
        assertThat(dir.resolve("runs/short/evaluation.json")).exists();
    }
}
