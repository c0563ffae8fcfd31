package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import javafx.scene.control.Alert;
import javafx.scene.input.KeyCode;
import javafx.stage.Modality;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.traindeck.app.ui.FxDialogs;

/**
 * A message (an error, a Help text) over a maximized window leaves it maximized: on Linux a modal dialog freezes its
 * owner's size and the window manager un-maximizes it (seen under openbox), so a message nothing waits on is owned by
 * the window, above it, but not modal.
 */
class MaximizedWindowAndMessagesTest extends WindowTest {

    @Test
    void anErrorOrAHelpTextOverAMaximizedWindowIsOwnedButNotModal(FxRobot robot) {
        Stage stage = (Stage) window.scene().getWindow();
        robot.interact(() -> stage.setMaximized(true));
        waitUntil("the window maximized", () -> onFx(stage::isMaximized));
        for (boolean error : new boolean[] {true, false}) {
            Alert[] shown = new Alert[1];
            robot.interact(() -> {
                shown[0] = error
                        ? FxDialogs.errorAlert(stage, "Cannot open x.json", "Is a directory")
                        : FxDialogs.infoAlert(stage, "Keyboard shortcuts", MainMenu.SHORTCUTS);
                shown[0].show();
            });
            waitUntil("the message shown", () -> onFx(shown[0]::isShowing));
            assertThat(onFx(shown[0]::getOwner)).as("above the window").isSameAs(stage);
            assertThat(onFx(shown[0]::getModality))
                    .as("a modal dialog would freeze the window's size")
                    .isEqualTo(Modality.NONE);
            assertThat(onFx(stage::isMaximized)).isTrue();
            robot.type(KeyCode.ESCAPE);
            waitUntil("the message to close on Esc", () -> !onFx(shown[0]::isShowing));
        }
        assertThat(onFx(stage::isMaximized)).isTrue();
    }
}
