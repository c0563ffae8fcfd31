package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.sinks.RunLock;

/** Closing the window while a run trains stops it the way Stop does: the steps since the last checkpoint are saved. */
class CloseDuringRunTest extends WindowTest {

    @Test
    void closingTheWindowDuringARunSavesAStopCheckpoint(FxRobot robot, @TempDir Path dir) throws Exception {
        Path config = dir.resolve("long.json");
        Files.writeString(config, """
                {"name": "closing", "outputDir": "%s", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 4000, "features": 8}},
                 "stages": [{"epochs": 100, "batchSize": 8}], "checkpoint": {"everyEpochs": 0, "keepBestPerStage": false}}
                """.formatted(dir.resolve("runs").toString().replace("\\", "/")));
        fixture.dialogs.toOpen = config;
        robot.clickOn("#open");
        waitUntil(
                "the config to load and validate",
                () -> !robot.lookup("#start").query().isDisabled());
        robot.clickOn("#start");
        waitUntil(
                "the run to train",
                () -> window.controller().stateProperty().get() == RunController.State.RUNNING
                        && window.dashboard().lossChart().totalPoints() > 20);
        RunHandle run = onFx(() -> window.controller().currentProperty().get());

        // what the window's close button does once the user confirmed (the test's dialogs say quit): one question
        assertThat(onFx(window::mayClose)).isTrue();
        assertThat(List.copyOf(fixture.dialogs.asked))
                .filteredOn(a -> a.startsWith("quit"))
                .singleElement()
                .satisfies(a -> assertThat(a).contains("The run in progress stops; a checkpoint is saved first"));
        Platform.runLater(window::close);
        RunResult result = run.completion().get(60, TimeUnit.SECONDS);

        assertThat(result.status()).isEqualTo(RunResult.Status.STOPPED);
        List<Checkpoint.Listed> saved = new CheckpointStore(result.runDir()).list();
        assertThat(saved).singleElement().satisfies(l -> {
            assertThat(l.checkpoint().reason()).isEqualTo("stop");
            assertThat(l.checkpoint().globalStep()).isEqualTo(result.steps()).isPositive();
        });
    }

    @Test
    void resumingARunFolderThatAnotherRunHoldsSaysSoAndStartsNothing(FxRobot robot, @TempDir Path dir)
            throws Exception {
        Path config = dir.resolve("tiny.json");
        Files.writeString(config, """
                {"name": "held", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}}, "stages": [{"epochs": 1, "batchSize": 20}]}
                """);
        RunResult done = WindowFixture.train(config);

        try (RunLock held = RunLock.acquire(done.runDir())) {
            fixture.dialogs.toResume = done.runDir();
            robot.clickOn("#resume");
            waitUntil("the refusal", () -> !fixture.dialogs.errors.isEmpty());
        }
        assertThat(List.copyOf(fixture.dialogs.errors))
                .singleElement()
                .satisfies(e -> assertThat(e).contains("is in use by another run in this TrainDeck"));
        assertThat(onFx(() -> window.controller().stateProperty().get())).isEqualTo(RunController.State.IDLE);
    }
}
