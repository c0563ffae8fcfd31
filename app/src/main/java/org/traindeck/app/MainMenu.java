package org.traindeck.app;

import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.CheckMenuItem;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.ToggleButton;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import org.traindeck.app.ui.Dialogs;

/**
 * The window's menus: File, Run, View and Help, each item with its shortcut. The File and Run items fire the toolbar's
 * buttons, so that an item is enabled exactly when its button is.
 */
final class MainMenu extends MenuBar {

    static final String SHORTCUTS = """
            Ctrl+N          a new config
            Ctrl+O          open a config
            Ctrl+S          save the config
            Ctrl+Shift+S    save it under another name
            Ctrl+Enter      start training
            Ctrl+R          resume a run from a checkpoint or a run folder
            Ctrl+.          stop (a checkpoint is saved first)
            Ctrl+Q          quit
            On a chart: drag across it to zoom, double-click to show everything again.""";

    /**
     * @param quit   asks before closing, as the window's close button does
     * @param where  where the preferences, the data and the docs are
     */
    MainMenu(MainToolbar toolbar, Dialogs dialogs, Runnable quit, Where where) {
        setId("menu-bar");
        Menu file = new Menu(
                "_File",
                null,
                fires("menu-new", "_New", toolbar.button("new"), shortcut(KeyCode.N)),
                fires("menu-open", "_Open…", toolbar.button("open"), shortcut(KeyCode.O)),
                fires("menu-save", "_Save", toolbar.button("save"), shortcut(KeyCode.S)),
                fires(
                        "menu-save-as",
                        "Save _As…",
                        toolbar.button("save-as"),
                        new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN)),
                new SeparatorMenuItem(),
                item("menu-quit", "_Quit", quit, shortcut(KeyCode.Q)));
        Menu run = new Menu(
                "_Run",
                null,
                fires("menu-start", "_Start", toolbar.button("start"), shortcut(KeyCode.ENTER)),
                fires("menu-resume", "_Resume…", toolbar.button("resume"), shortcut(KeyCode.R)),
                fires("menu-stop", "S_top", toolbar.button("stop"), shortcut(KeyCode.PERIOD)),
                new SeparatorMenuItem(),
                fires("menu-open-run", "Open _run…", toolbar.button("open-run"), null));
        ToggleButton darkToggle = toolbar.darkToggle();
        CheckMenuItem dark = new CheckMenuItem("_Dark theme");
        dark.setId("menu-dark");
        dark.selectedProperty().bindBidirectional(darkToggle.selectedProperty());
        Menu view = new Menu("_View", null, dark);
        Menu help = new Menu(
                "_Help",
                null,
                item(
                        "menu-shortcuts",
                        "_Keyboard shortcuts",
                        () -> dialogs.showInfo("Keyboard shortcuts", SHORTCUTS),
                        null),
                item(
                        "menu-where-files-go",
                        "_Where files go",
                        () -> dialogs.showInfo("Where files go", where.describe()),
                        null),
                item(
                        "menu-docs",
                        "_Documentation",
                        () -> {
                            if (Files.isDirectory(where.docs())) {
                                dialogs.showFolder(where.docs());
                            } else {
                                dialogs.showInfo(
                                        "Documentation",
                                        "The documentation is in the docs folder of TrainDeck's sources.");
                            }
                        },
                        null));
        getMenus().addAll(file, run, view, help);
    }

    /** Where TrainDeck keeps things, as Help says it. */
    record Where(Path preferences, Path dataHome, Path docs) {

        String describe() {
            return "Runs: each run gets a folder of its own in the config's output folder (\"outputDir\", relative to the "
                    + "config file), named after the run, with -2, -3… when the name is taken. It holds the config used, "
                    + "train.log, metrics.jsonl and metrics.csv, histograms.jsonl and checkpoints/.\n"
                    + "Preferences (window, dividers, recent files, theme): " + preferences + "\n"
                    + "Data and caches: " + dataHome + "\n"
                    + "Documentation: " + docs;
        }
    }

    private static KeyCombination shortcut(KeyCode key) {
        return new KeyCodeCombination(key, KeyCombination.SHORTCUT_DOWN);
    }

    private static MenuItem fires(String id, String text, ButtonBase button, KeyCombination keys) {
        MenuItem item = item(id, text, button::fire, keys);
        item.disableProperty().bind(button.disableProperty());
        return item;
    }

    private static MenuItem item(String id, String text, Runnable action, KeyCombination keys) {
        MenuItem item = new MenuItem(text);
        item.setId(id);
        item.setOnAction(e -> action.run());
        if (keys != null) {
            item.setAccelerator(keys);
        }
        return item;
    }
}
