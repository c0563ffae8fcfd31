package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.app.run.RunController;
import org.traindeck.app.ui.Dialogs;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.runs.RunResult;

/** The real scene, driven as a user would: edit, break, fix, pick devices, toggle NCCL, Start, Stop, Resume. */
class DashboardFlowTest extends WindowTest {

    private void selectTab(FxRobot robot, int index) {
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(index));
    }

    private void typeInto(FxRobot robot, String query, String text) {
        TextField field = robot.lookup(query).queryAs(TextField.class);
        robot.interact(() -> FxWait.scrollIntoView(field));
        robot.clickOn(field);
        robot.interact(field::selectAll);
        robot.eraseText(1);
        robot.write(text);
    }

    private boolean startEnabled(FxRobot robot) {
        return onFx(() -> !robot.lookup("#start").queryAs(Button.class).isDisabled());
    }

    private static String tooltipText(TextField field) {
        return field.getTooltip() == null ? null : field.getTooltip().getText();
    }

    @Test
    void editRunStopAndResumeThroughTheWindow(FxRobot robot, @TempDir Path out) throws Exception {
        // opening a sample config through Open (the file chooser's double answers)
        fixture.dialogs.toOpen = WindowFixture.repoRoot().resolve("sample-configs/digits-mlp.json");
        robot.clickOn("#open");
        waitUntil("the sample to load and validate", () -> startEnabled(robot));
        assertThat(onFx(() ->
                        window.document().fileProperty().get().getFileName().toString()))
                .isEqualTo("digits-mlp.json");

        // breaking a field: the error names the field's path and line, and Start is disabled
        // (validation runs in the background and each keystroke gives a result: wait for the one of "0" to settle)
        typeInto(robot, "#field-epochs", "0");
        TextField epochs = robot.lookup("#field-epochs").queryAs(TextField.class);
        waitUntil(
                "the error of epochs = 0 to show",
                () -> !window.document().validatingProperty().get()
                        && epochs.getStyleClass().contains("field-error")
                        && String.valueOf(tooltipText(epochs))
                                .startsWith("stages[0].epochs: must be between 1 and 1000000 (line"));
        assertThat(startEnabled(robot)).isFalse();
        assertThat(onFx(() ->
                        robot.lookup("#validation-summary").queryAs(Label.class).getText()))
                .contains("Start is disabled");

        // fixing it, and sending the run somewhere temporary
        typeInto(robot, "#field-epochs", "40");
        typeInto(robot, "#field-output-folder", out.toString());
        waitUntil("the config to be valid again", () -> startEnabled(robot));
        assertThat(onFx(() -> List.copyOf(epochs.getStyleClass()))).doesNotContain("field-error");

        // the device selector: the CPU (there is no GPU on the test machines) goes into the JSON
        selectTab(robot, 2);
        waitUntil(
                "the devices to be listed",
                () -> robot.lookup("#device-cpu").tryQuery().isPresent()
                        && robot.lookup("#device-status")
                                        .queryAs(Label.class)
                                        .getText()
                                        .length()
                                > 20);
        CheckBox cpu = robot.lookup("#device-cpu").queryAs(CheckBox.class);
        robot.interact(() -> cpu.setSelected(false));
        robot.clickOn(cpu);
        assertThat(onFx(cpu::isSelected)).isTrue();

        // an NCCL toggle, seen in the JSON tab
        selectTab(robot, 3);
        robot.clickOn("#nccl-NCCL_P2P_DISABLE");
        waitUntil(
                "the badge",
                () -> !robot.lookup("#nccl-badge-NCCL_P2P_DISABLE")
                        .queryAs(Label.class)
                        .getText()
                        .isEmpty());
        selectTab(robot, 1);
        String json =
                onFx(() -> robot.lookup("#json-editor").queryAs(TextArea.class).getText());
        assertThat(json)
                .contains("\"NCCL_P2P_DISABLE\": \"1\"")
                .contains("\"devices\": \"cpu\"")
                .contains("\"epochs\": 40");
        waitUntil("the config to be valid", () -> startEnabled(robot));

        // Start: all four charts receive points and the status bar advances
        robot.clickOn("#start");
        waitUntil(
                "the run to train",
                () -> window.dashboard().lossChart().totalPoints() > 40
                        && window.dashboard().throughputChart().totalPoints() > 5);
        for (LiveChart c : window.dashboard().charts()) {
            waitUntil(c.getId() + " to get points and draw them", () -> c.totalPoints() > 0 && c.drawnPoints() > 0);
        }
        String stepBefore = onFx(() -> window.dashboard().status().stepText());
        waitUntil(
                "the status bar to advance",
                () -> !window.dashboard().status().stepText().equals(stepBefore));
        assertThat(onFx(() -> window.dashboard().status().progressValue())).isPositive();

        // Stop: the run stops cleanly, with a checkpoint
        robot.clickOn("#stop");
        waitUntil("the run to stop", () -> window.controller().stateProperty().get() == RunController.State.IDLE);
        RunResult stopped = onFx(() -> window.controller().lastResultProperty().get());
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(stopped.lastCheckpoint()).exists();
        Path runDir = stopped.runDir();
        assertThat(runDir).startsWith(out);

        // Resume from the run folder chosen in the (double of the) file chooser: it continues at the same step
        fixture.dialogs.toResume = runDir;
        robot.clickOn("#resume");
        waitUntil(
                "the resumed run to train on",
                () -> window.controller().stateProperty().get() == RunController.State.RUNNING
                        && window.dashboard().lossChart().data("train/0") != null
                        && window.dashboard().lossChart().data("train/0").size() > stopped.steps() + 5);
        assertThat(List.copyOf(fixture.dialogs.asked)).contains("resume").noneMatch(a -> a.startsWith("confirm:"));
        assertThat(fixture.dialogs.resumeFolder)
                .as("the chooser opens at the run just stopped")
                .isEqualTo(runDir.toAbsolutePath().normalize());
        assertThat(fixture.dialogs.resumeNewest)
                .as("with the run's newest valid checkpoint chosen, the one Stop wrote, not a best-of-stage copy")
                .isEqualTo(stopped.lastCheckpoint());
        robot.clickOn("#stop");
        waitUntil(
                "the resumed run to stop",
                () -> window.controller().stateProperty().get() == RunController.State.IDLE);
        RunResult second = onFx(() -> window.controller().lastResultProperty().get());
        assertThat(second.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(second.steps()).isGreaterThan(stopped.steps());
        assertThat(second.runDir()).isEqualTo(runDir);
        String metrics = Files.readString(runDir.resolve("metrics.jsonl"));
        assertThat(metrics).contains("\"RUN_STOPPED\"").contains("\"RUN_RESUMED\"");
        assertThat(onFx(() -> List.copyOf(window.dashboard().log().getItems())))
                .anySatisfy(l -> assertThat(l).contains("run resumed"));
        assertThat(List.copyOf(fixture.dialogs.errors)).isEmpty();
    }

    @Test
    void unsavedChangesAreNeverLostSilently(FxRobot robot, @TempDir Path dir) throws Exception {
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        typeInto(robot, "#field-run-name", "renamed");
        waitUntil("the edit to register", () -> window.document().isDirty());

        fixture.dialogs.unsaved = Dialogs.UnsavedChoice.CANCEL;
        robot.clickOn("#new");
        assertThat(List.copyOf(fixture.dialogs.asked))
                .anySatisfy(a -> assertThat(a).startsWith("unsaved:"));
        assertThat(onFx(() -> window.document().text())).contains("\"renamed\"");
        // quitting asks once, offering to save; Cancel keeps the window
        fixture.dialogs.quit = Dialogs.QuitChoice.CANCEL;
        assertThat(onFx(window::mayClose)).isFalse();
        assertThat(List.copyOf(fixture.dialogs.asked))
                .filteredOn(a -> a.startsWith("quit"))
                .singleElement()
                .satisfies(a -> assertThat(a).startsWith("quit(save offered): ").contains("are not saved"));

        Path target = dir.resolve("renamed.json");
        fixture.dialogs.toSave = target;
        robot.push(KeyCode.CONTROL, KeyCode.SHIFT, KeyCode.S);
        waitUntil("the save", () -> !window.document().isDirty());
        assertThat(Files.readString(target)).contains("\"renamed\"");
        // saved into another folder, the copy's relative data path still reaches the same file, so it stays valid
        assertThat(Configs.load(target).errors()).isEmpty();
        assertThat(onFx(() -> window.document().isDirty())).isFalse();
        try (var left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString()).toList()).containsExactly("renamed.json");
        }
        assertThat(List.copyOf(fixture.dialogs.asked)).contains("save:renamed.json");
    }

    @Test
    void aPastRunOpensWithTheSameCharts(FxRobot robot, @TempDir Path dir) throws Exception {
        Path config = dir.resolve("tiny.json");
        Files.writeString(config, """
                {"name": "tiny", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 20}]}
                """);
        RunResult r = WindowFixture.train(config);

        fixture.dialogs.runFolder = r.runDir();
        robot.clickOn("#open-run");
        waitUntil(
                "the past run's curves",
                () -> window.dashboard().lossChart().totalPoints() >= 16 + 2
                        && window.dashboard().lrChart().totalPoints() == 16);
        assertThat(onFx(() -> List.copyOf(window.dashboard().log().getItems())))
                .anySatisfy(l -> assertThat(l).contains("run finished"));
        List<String> asked = List.copyOf(fixture.dialogs.asked);
        assertThat(asked).contains("run-folder");
        // the past run's own stages and name, not those of the config open in the editor (15 epochs, "digits-mlp")
        assertThat(onFx(() -> window.dashboard().status().runText()))
                .isEqualTo("run tiny"); // named by its folder, once
        assertThat(onFx(() -> window.dashboard().status().epochText())).endsWith("/2");
    }
}
