package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ToggleButton;
import javafx.scene.input.KeyCodeCombination;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.engine.api.Engine;

/** A menu bar with the shortcuts and Help; preferences in the app's own config folder, which the environment names. */
class MenusAndPreferencesTest extends WindowTest {

    @Test
    void theMenusOfferEveryActionWithItsShortcutAndHelpSaysWhereFilesGo(FxRobot robot) {
        MenuBar bar = robot.lookup("#menu-bar").queryAs(MenuBar.class);
        assertThat(onFx(() -> bar.getMenus().stream().map(Menu::getText).toList()))
                .containsExactly("_File", "_Run", "_View", "_Help");
        List<String> shortcuts = onFx(() -> bar.getMenus().stream()
                .flatMap(m -> m.getItems().stream())
                .map(MenuItem::getAccelerator)
                .filter(k -> k instanceof KeyCodeCombination)
                .map(k -> k.getDisplayText())
                .toList());
        assertThat(shortcuts).hasSize(8);
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        MenuItem start = onFx(() -> bar.getMenus().get(1).getItems().get(0));
        assertThat(onFx(start::isDisable))
                .isEqualTo(onFx(() -> robot.lookup("#start").query().isDisabled()));

        MenuItem keys = onFx(() -> bar.getMenus().get(3).getItems().get(0));
        MenuItem where = onFx(() -> bar.getMenus().get(3).getItems().get(1));
        robot.interact(keys::fire);
        robot.interact(where::fire);
        assertThat(List.copyOf(fixture.dialogs.infos)).hasSize(2);
        assertThat(fixture.dialogs.infos.get(0))
                .startsWith("Keyboard shortcuts")
                .contains("Ctrl+Enter");
        assertThat(fixture.dialogs.infos.get(1))
                .startsWith("Where files go")
                .contains(fixture.configFolder.toString())
                .contains("checkpoints");
    }

    @Test
    void thePreferencesFollowXdgConfigHomeElseHome(@TempDir Path dir) {
        assertThat(AppPreferences.configFolder(
                        Map.of("XDG_CONFIG_HOME", dir.resolve("xdg").toString(), "HOME", dir.toString())))
                .isEqualTo(dir.resolve("xdg").resolve("traindeck"));
        assertThat(AppPreferences.configFolder(Map.of("HOME", dir.toString())))
                .isEqualTo(dir.resolve(".config").resolve("traindeck"));
        // a relative XDG_CONFIG_HOME is invalid by the XDG rules and ignored
        assertThat(AppPreferences.configFolder(Map.of("XDG_CONFIG_HOME", "rel", "HOME", dir.toString())))
                .isEqualTo(dir.resolve(".config").resolve("traindeck"));
    }

    @Test
    void whatTheWindowRemembersIsWrittenToThatFolderAndReadBack(FxRobot robot) throws Exception {
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        robot.interact(() -> robot.lookup("#theme").queryAs(ToggleButton.class).setSelected(true));
        robot.interact(window::close);

        Path file = fixture.configFolder.resolve(AppPreferences.FILE);
        waitUntil(
                "the writer to write the preferences",
                () -> text(file).contains("dark=true") && text(file).contains("divider.main="));
        AppPreferences again = new AppPreferences(file);
        assertThat(again.dark()).isTrue();
        assertThat(again.recentFiles())
                .anySatisfy(f -> assertThat(f.getFileName().toString()).isEqualTo("digits-mlp.json"));
    }

    /** The window opens as it was left: its size (not 25 px taller each time) and whether it was maximized. */
    @Test
    void theWindowKeepsItsSizeAndStateAcrossRestarts(FxRobot robot) throws Exception {
        robot.interact(() -> {
            Stage stage = (Stage) window.scene().getWindow();
            stage.setWidth(1290);
            stage.setHeight(810);
        });
        for (int restart = 0; restart < 2; restart++) {
            robot.interact(window::close);
            FxToolkit.setupStage(stage -> window = fixture.open(stage, null));
            WaitForAsyncUtils.waitForFxEvents();
            Stage stage = (Stage) window.scene().getWindow();
            assertThat(onFx(() -> new double[] {stage.getWidth(), stage.getHeight()}))
                    .as("after restart %d", restart + 1)
                    .containsExactly(1290, 810);
        }

        robot.interact(() -> ((Stage) window.scene().getWindow()).setMaximized(true));
        robot.interact(window::close);
        FxToolkit.setupStage(stage -> window = fixture.open(stage, null));
        WaitForAsyncUtils.waitForFxEvents();
        Stage maximized = (Stage) window.scene().getWindow();
        assertThat(onFx(maximized::isMaximized)).isTrue();
        // un-maximized, it has the size it had before
        robot.interact(() -> maximized.setMaximized(false));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(onFx(() -> new double[] {maximized.getWidth(), maximized.getHeight()}))
                .containsExactly(1290, 810);
        robot.interact(window::close);
        FxToolkit.setupStage(stage -> window = fixture.open(stage, null));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(onFx(((Stage) window.scene().getWindow())::isMaximized)).isFalse();
    }

    /** Help says where files go as the environment has it: HOME pointed elsewhere, or XDG_DATA_HOME set. */
    @Test
    void helpsDataFolderFollowsHomeAndXdg() {
        assertThat(Engine.dataHome(Map.of("HOME", "/home/other")))
                .isEqualTo(Path.of("/home/other/.local/share/traindeck"));
        assertThat(Engine.dataHome(Map.of("HOME", "/home/other", "XDG_DATA_HOME", "/data/xdg")))
                .isEqualTo(Path.of("/data/xdg/traindeck"));
        // a relative XDG path is not one (the XDG rule): HOME's is used
        assertThat(Engine.dataHome(Map.of("HOME", "/home/other", "XDG_DATA_HOME", "relative")))
                .isEqualTo(Path.of("/home/other/.local/share/traindeck"));
        assertThat(new MainMenu.Where(Path.of("/p"), Engine.dataHome(Map.of("HOME", "/home/other")), Path.of("/d"))
                        .describe())
                .contains("Data and caches: /home/other/.local/share/traindeck");
    }

    @Test
    void changesAreWrittenByTheWriterNotOnTheCallersThread(@TempDir Path dir) throws Exception {
        List<Runnable> pending = new ArrayList<>();
        Path file = dir.resolve("cfg").resolve(AppPreferences.FILE);
        Path config = Files.writeString(dir.resolve("a.json"), "{}");
        AppPreferences preferences = new AppPreferences(file, pending::add);
        preferences.addRecent(config);
        preferences.lastFolder(dir);
        preferences.dark(true);
        preferences.flush();

        assertThat(file.getParent()).doesNotExist();
        assertThat(pending).hasSize(3);
        pending.forEach(Runnable::run);
        AppPreferences again = new AppPreferences(file);
        assertThat(again.dark()).isTrue();
        assertThat(again.recentFiles()).containsExactly(config.toAbsolutePath());
        assertThat(again.lastFolder()).isEqualTo(dir.toAbsolutePath());
    }

    private static String text(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
