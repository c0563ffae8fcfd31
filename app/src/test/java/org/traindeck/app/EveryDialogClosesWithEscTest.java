package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.Dialog;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.evaluate.Evaluations;
import org.traindeck.app.ui.FxDialogs;
import org.traindeck.engine.api.Engine;

/** Every dialog closes with Esc, and has a button that says it closes it. */
class EveryDialogClosesWithEscTest extends WindowTest {

    @Test
    void everyAlertClosesWithEsc(FxRobot robot) {
        Window owner = window.scene().getWindow();
        Map<String, Supplier<Dialog<?>>> dialogs = new LinkedHashMap<>();
        dialogs.put("info", () -> FxDialogs.infoAlert(owner, "Keyboard shortcuts", MainMenu.SHORTCUTS));
        dialogs.put("error", () -> FxDialogs.errorAlert(owner, "TrainDeck", "The run failed."));
        dialogs.put("confirm", () -> FxDialogs.confirmAlert(owner, "Remove", "Remove #1 from the queue?"));
        dialogs.put("quit", () -> FxDialogs.quitAlert(owner, "Your changes are not saved.", true));
        dialogs.put("unsaved", () -> FxDialogs.unsavedAlert(owner, "Open another config?"));
        for (Map.Entry<String, Supplier<Dialog<?>>> d : dialogs.entrySet()) {
            Dialog<?>[] shown = new Dialog<?>[1];
            robot.interact(() -> {
                shown[0] = d.getValue().get();
                shown[0].show();
            });
            assertThat(onFx(() -> shown[0].getDialogPane().getButtonTypes().stream()
                            .anyMatch(t -> t.getButtonData() == ButtonBar.ButtonData.CANCEL_CLOSE
                                    || shown[0].getDialogPane().getButtonTypes().size() == 1)))
                    .as("%s has a button that closes it", d.getKey())
                    .isTrue();
            robot.type(KeyCode.ESCAPE);
            waitUntil(d.getKey() + " to close on Esc", () -> !shown[0].isShowing());
        }
    }

    @Test
    void theEvaluationWindowHasCloseAndClosesWithEsc(FxRobot robot, @TempDir Path dir) {
        Evaluations evaluations = onFx(() -> new Evaluations(window.scene().getWindow(), Engine.local()));
        try {
            // a folder with no run in it: the window says so, and is a window to close all the same
            robot.interact(() -> evaluations.evaluate(dir));
            Stage shown = onFx(evaluations::window);
            waitUntil("the evaluation window", shown::isShowing);
            assertThat(onFx(() -> ((Button) shown.getScene().lookup("#evaluation-close")).getText()))
                    .isEqualTo("Close");
            robot.type(KeyCode.ESCAPE);
            waitUntil("the evaluation window to close on Esc", () -> !shown.isShowing());

            robot.interact(() -> evaluations.evaluate(dir));
            waitUntil("the evaluation window again", shown::isShowing);
            robot.interact(() -> ((Button) shown.getScene().lookup("#evaluation-close")).fire());
            WaitForAsyncUtils.waitForFxEvents();
            assertThat(onFx(shown::isShowing)).isFalse();
        } finally {
            evaluations.shutdown();
        }
    }
}
