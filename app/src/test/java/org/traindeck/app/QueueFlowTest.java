package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.TabPane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.runs.RunResult;

/** Queued runs through the window: added, run one after another on the dashboard, stopped and continued. */
class QueueFlowTest extends WindowTest {

    @SuppressWarnings("unchecked")
    private List<QueueEntry> listed(FxRobot robot) {
        return onFx(() ->
                List.copyOf(robot.lookup("#queue-list").queryAs(ListView.class).getItems()));
    }

    private void openQueueTab(FxRobot robot, Path config) {
        fixture.dialogs.toOpen = config;
        robot.clickOn("#open");
        waitUntil(
                "the config to load and validate",
                () -> !robot.lookup("#start").query().isDisabled());
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(5));
    }

    private static long runFolders(Path runs) throws Exception {
        try (Stream<Path> s = Files.list(runs)) {
            return s.filter(Files::isDirectory).count();
        }
    }

    @Test
    void twoQueuedRunsRunOneAfterAnotherOnTheDashboard(FxRobot robot, @TempDir Path dir) throws Exception {
        Path config = dir.resolve("queued.json");
        Files.writeString(config, """
                {"name": "queued", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 20}]}
                """);
        openQueueTab(robot, config);
        robot.clickOn("#queue-add");
        waitUntil("the first entry", () -> listed(robot).size() == 1);
        robot.clickOn("#queue-add");
        waitUntil("the second entry", () -> listed(robot).size() == 2);
        assertThat(listed(robot)).extracting(QueueEntry::status).containsOnly(QueueEntry.Status.PENDING);

        robot.clickOn("#queue-run");
        waitUntil(
                "both queued runs to finish",
                () -> listed(robot).stream().allMatch(e -> e.status() == QueueEntry.Status.FINISHED)
                        && window.controller().stateProperty().get() == RunController.State.IDLE);
        assertThat(runFolders(dir.resolve("runs"))).isEqualTo(2);
        assertThat(onFx(() -> window.controller().lastResultProperty().get().status()))
                .isEqualTo(RunResult.Status.FINISHED);
        waitUntil("the last run's summary", () -> window.dashboard().summary().shown() != null);
        // a run's events reach the dashboard on a thread of their own: the last ones may come just after its end
        waitUntil("the last run's curves", () -> window.dashboard().lossChart().totalPoints() > 0);
        assertThat(onFx(() -> robot.lookup("#queue-run").query().isDisabled()))
                .as("nothing left to run")
                .isTrue();
    }

    @Test
    void theSelectedEntryMovesUpIsRemovedAndAFinishedOneOpensItsRun(FxRobot robot, @TempDir Path dir) throws Exception {
        Path config = dir.resolve("q.json");
        Files.writeString(config, """
                {"name": "q", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 20}]}
                """);
        openQueueTab(robot, config);
        for (int n = 1; n <= 3; n++) {
            robot.clickOn("#queue-add");
            int expected = n;
            waitUntil("entry " + n, () -> listed(robot).size() == expected);
        }
        assertThat(onFx(() -> robot.lookup("#queue-up").query().isDisabled()))
                .as("nothing selected")
                .isTrue();
        ListView<?> list = robot.lookup("#queue-list").queryAs(ListView.class);
        robot.interact(() -> list.getSelectionModel().select(2));
        robot.clickOn("#queue-up");
        waitUntil(
                "#3 second",
                () -> listed(robot).stream().map(QueueEntry::id).toList().equals(List.of(1, 3, 2)));
        assertThat(onFx(() -> ((QueueEntry) list.getSelectionModel().getSelectedItem()).id()))
                .as("the moved entry stays selected")
                .isEqualTo(3);
        assertThat(onFx(() -> robot.lookup("#queue-list .list-cell").queryAllAs(ListCell.class).stream()
                        .filter(c -> c.getItem() != null)
                        .map(c -> c.getText().substring(0, c.getText().indexOf("  pending")))
                        .toList()))
                .as("each entry's place in the queue, then its number")
                .containsExactly("1.  #1", "2.  #3", "3.  #2");
        robot.interact(() -> list.getSelectionModel().select(0));
        // removing asks first; no leaves the entry where it was
        fixture.dialogs.confirm = false;
        robot.clickOn("#queue-remove");
        assertThat(List.copyOf(fixture.dialogs.asked))
                .anySatisfy(q -> assertThat(q).startsWith("confirm:Remove #1 from the queue?"));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(listed(robot)).extracting(QueueEntry::id).containsExactly(1, 3, 2);
        fixture.dialogs.confirm = true;
        robot.clickOn("#queue-remove");
        waitUntil(
                "#1 gone",
                () -> listed(robot).stream().map(QueueEntry::id).toList().equals(List.of(3, 2)));
        assertThat(onFx(() -> robot.lookup("#queue-message").queryLabeled().getText()))
                .contains("Removed #1");

        robot.clickOn("#queue-run");
        waitUntil(
                "both runs to finish",
                () -> listed(robot).stream().allMatch(e -> e.status() == QueueEntry.Status.FINISHED)
                        && window.controller().stateProperty().get() == RunController.State.IDLE);
        robot.interact(() -> list.getSelectionModel().select(0));
        assertThat(onFx(() -> robot.lookup("#queue-up").query().isDisabled()))
                .as("a finished run does not move")
                .isTrue();
        Path first = listed(robot).get(0).runDir();
        robot.interact(() -> window.dashboard().clearRun());
        robot.clickOn("#queue-open");
        waitUntil(
                "its run on the dashboard", () -> window.dashboard().lossChart().totalPoints() > 0);
        waitUntil(
                "the opened message",
                () -> onFx(() -> List.copyOf(window.dashboard().messages().messages())).stream()
                        .anyMatch(m -> m.contains("opened " + first)));
    }

    @Test
    void stoppingTheQueueKeepsTheRunAndRunningItAgainContinuesIt(FxRobot robot, @TempDir Path dir) throws Exception {
        Path config = dir.resolve("long.json");
        Files.writeString(config, """
                {"name": "long", "outputDir": "runs", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 4000, "features": 8}},
                 "stages": [{"epochs": 30, "batchSize": 8}], "checkpoint": {"everyEpochs": 0, "keepBestPerStage": false}}
                """);
        openQueueTab(robot, config);
        robot.clickOn("#queue-add");
        waitUntil("the entry", () -> listed(robot).size() == 1);
        robot.clickOn("#queue-run");
        waitUntil(
                "the queued run to train",
                () -> window.controller().stateProperty().get() == RunController.State.RUNNING
                        && window.dashboard().lossChart().totalPoints() > 20);
        robot.clickOn("#stop");
        waitUntil(
                "the queue to stop",
                () -> window.controller().stateProperty().get() == RunController.State.IDLE
                        && listed(robot).get(0).status() == QueueEntry.Status.STOPPED);
        Path runDir = listed(robot).get(0).runDir();
        long stoppedAt =
                onFx(() -> window.controller().lastResultProperty().get().steps());
        assertThat(stoppedAt).isPositive();

        // the queue continues the same run from its stop checkpoint; the test shortens it by stopping again later
        robot.clickOn("#queue-run");
        waitUntil(
                "the run to continue past its stop",
                () -> window.controller().stateProperty().get() == RunController.State.RUNNING
                        && window.controller().currentProperty().get() != null
                        && window.controller().currentProperty().get().currentStep() > stoppedAt);
        assertThat(onFx(() -> window.controller().currentProperty().get().runDir()))
                .isEqualTo(runDir);
        robot.clickOn("#stop");
        waitUntil(
                "the queue to stop again",
                () -> window.controller().stateProperty().get() == RunController.State.IDLE);
        assertThat(runFolders(dir.resolve("runs"))).as("no second folder").isEqualTo(1);
        assertThat(Files.readString(runDir.resolve("train.log"))).contains("resuming from");
    }
}
