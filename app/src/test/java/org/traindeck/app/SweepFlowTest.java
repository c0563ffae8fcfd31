package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.sweeps.Trial;

/** A sweep run from the window's Sweeps tab: checked first, its trials trained on the dashboard, the table filled in. */
class SweepFlowTest extends WindowTest {

    @SuppressWarnings("unchecked")
    private static List<Trial> rows(FxRobot robot) {
        return onFx(() -> List.copyOf(
                robot.lookup("#sweeps-table").queryAs(TableView.class).getItems()));
    }

    private static String message(FxRobot robot) {
        return onFx(() -> robot.lookup("#sweeps-message").queryAs(Label.class).getText());
    }

    private static long hparamsFiles(Path folder, String suffix) throws Exception {
        try (var files = Files.list(folder)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix))
                    .count();
        }
    }

    private void openSweepsTab(FxRobot robot) {
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(6));
    }

    @Test
    void aSweepFileRunsItsTrialsOnTheDashboardAndFillsTheTable(FxRobot robot, @TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 20}]}
                """);
        Path sweep = dir.resolve("lr-sweep.json");
        Files.writeString(sweep, """
                {"name": "lr", "base": "base.json", "parameters": {"stages[0].optimizer.learningRate": [0.0003, 0.01]},
                 "metric": "val/accuracy"}
                """);
        openSweepsTab(robot);
        fixture.dialogs.sweep = sweep;
        robot.clickOn("#sweeps-run");

        waitUntil(
                "both trials to finish",
                () -> window.controller().stateProperty().get() == RunController.State.IDLE
                        && rows(robot).size() == 2
                        && rows(robot).stream().allMatch(t -> t.status() == QueueEntry.Status.FINISHED));
        assertThat(rows(robot))
                .extracting(t -> t.values().get("stages[0].optimizer.learningRate"))
                .containsExactlyInAnyOrder("0.0003", "0.01");
        assertThat(rows(robot)).allSatisfy(t -> {
            assertThat(t.best()).isBetween(0.0, 1.0);
            assertThat(t.runDir()).exists();
        });
        assertThat(message(robot)).startsWith("Sweep lr: 2 trial(s)");
        assertThat(fixture.dialogs.asked).contains("sweep");
        // the last trial was the one on the dashboard
        assertThat(onFx(() -> window.dashboard().status().runName())).isEqualTo("lr-2");
        assertThat(dir.resolve("runs/sweep-lr.json")).exists();
        // TensorBoard's HParams records, as `traindeck sweep` writes them: the experiment, and each trial's session
        assertThat(hparamsFiles(dir.resolve("runs"), ".sweep-lr.hparams")).isOne();
        for (Trial t : rows(robot)) {
            assertThat(hparamsFiles(t.runDir().resolve("tensorboard"), ".session.hparams"))
                    .as(t.label())
                    .isOne();
            assertThat(hparamsFiles(t.runDir().resolve("tensorboard"), ".end.hparams"))
                    .as(t.label())
                    .isOne();
        }

        // run again: every trial is done, so the queue starts, trains nothing and ends
        List<RunController.State> states = Collections.synchronizedList(new ArrayList<>());
        robot.interact(() -> window.controller().stateProperty().addListener((o, a, b) -> states.add(b)));
        Object lastResult = onFx(() -> window.controller().lastResultProperty().get());
        robot.clickOn("#sweeps-run");
        waitUntil(
                "the second run to start and end",
                () -> states.contains(RunController.State.STARTING)
                        && window.controller().stateProperty().get() == RunController.State.IDLE);
        assertThat(onFx(() -> window.controller().lastResultProperty().get()))
                .as("no run ended")
                .isSameAs(lastResult);
        try (var folders = Files.list(dir.resolve("runs"))) {
            assertThat(folders.filter(Files::isDirectory).count()).isEqualTo(2);
        }
    }

    @Test
    void aSweepThatCannotRunSaysWhyAndStartsNothing(FxRobot robot, @TempDir Path dir) throws Exception {
        Path sweep = dir.resolve("broken.json");
        Files.writeString(sweep, """
                {"name": "broken", "base": "missing.json", "parameters": {"stages[0].epochs": [1]}, "metric": "val/loss"}
                """);
        openSweepsTab(robot);
        fixture.dialogs.sweep = sweep;
        robot.clickOn("#sweeps-run");

        waitUntil("the reason", () -> message(robot).startsWith("Cannot run broken.json"));
        assertThat(message(robot)).contains("base").contains("missing.json").contains("does not exist");
        assertThat(window.controller().stateProperty().get()).isEqualTo(RunController.State.IDLE);
        assertThat(window.controller().currentProperty().get()).isNull();
    }
}
