package org.traindeck.app;

import javafx.beans.binding.Bindings;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.Separator;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToolBar;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.config.ValidationResult;

/**
 * The window's toolbar: New / Open / Recent / Save / Save As, Start / Resume / Stop, Open run, and the theme, each
 * enabled when it can act, with its keyboard shortcut.
 */
final class MainToolbar extends ToolBar {

    private final Button newButton;
    private final Button open;
    private final Button save;
    private final Button saveAs;
    private final Button start;
    private final Button resume;
    private final Button stop;
    private final ToggleButton dark = new ToggleButton("Dark");

    MainToolbar(
            ConfigFileActions files,
            RunActions runs,
            RunController controller,
            ConfigDocument document,
            boolean darkTheme) {
        newButton = button("new", "New", "a new config (Ctrl+N)", files::newConfig);
        open = button("open", "Open…", "open a config (Ctrl+O)", files::openConfig);
        save = button("save", "Save", "save the config (Ctrl+S)", files::save);
        saveAs = button("save-as", "Save As…", "save under another name (Ctrl+Shift+S)", files::saveAs);
        start = button("start", "▶ Start", "train with this config (Ctrl+Enter)", runs::start);
        resume = button("resume", "⟳ Resume…", "resume from a checkpoint or a run folder (Ctrl+R)", runs::resume);
        stop = button(
                "stop", "■ Stop", "stop after the current step; a checkpoint is saved (Ctrl+Period)", controller::stop);
        Button openRun = button("open-run", "Open run…", "show a past run's curves from its folder", runs::openRun);
        dark.setId("theme");
        dark.setSelected(darkTheme);
        start.disableProperty()
                .bind(Bindings.createBooleanBinding(
                        () -> {
                            ValidationResult v = document.validationProperty().get();
                            return v == null
                                    || !v.isValid()
                                    || document.validatingProperty().get()
                                    || controller.stateProperty().get() != RunController.State.IDLE;
                        },
                        document.validationProperty(),
                        document.validatingProperty(),
                        controller.stateProperty()));
        resume.disableProperty().bind(controller.stateProperty().isNotEqualTo(RunController.State.IDLE));
        openRun.disableProperty().bind(controller.stateProperty().isNotEqualTo(RunController.State.IDLE));
        stop.disableProperty().bind(controller.stateProperty().isNotEqualTo(RunController.State.RUNNING));
        getItems()
                .addAll(
                        newButton,
                        open,
                        files.recentMenu(),
                        save,
                        saveAs,
                        new Separator(),
                        start,
                        resume,
                        stop,
                        new Separator(),
                        openRun,
                        dark);
    }

    /** The toolbar's button with this id (the menu fires it, so that both are enabled alike). */
    ButtonBase button(String id) {
        return getItems().stream()
                .filter(n -> n instanceof ButtonBase && id.equals(n.getId()))
                .map(ButtonBase.class::cast)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no toolbar button " + id));
    }

    /** The theme switch: selected is dark. */
    ToggleButton darkToggle() {
        return dark;
    }

    /** Ctrl+N, O, S, Shift+S, Enter, R and Period, each as its button (so a disabled button's shortcut does nothing). */
    void installShortcuts(Scene scene) {
        var accelerators = scene.getAccelerators();
        accelerators.put(new KeyCodeCombination(KeyCode.N, KeyCombination.SHORTCUT_DOWN), newButton::fire);
        accelerators.put(new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN), open::fire);
        accelerators.put(new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN), save::fire);
        accelerators.put(
                new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN),
                saveAs::fire);
        accelerators.put(new KeyCodeCombination(KeyCode.ENTER, KeyCombination.SHORTCUT_DOWN), start::fire);
        accelerators.put(new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN), resume::fire);
        accelerators.put(new KeyCodeCombination(KeyCode.PERIOD, KeyCombination.SHORTCUT_DOWN), stop::fire);
    }

    private static Button button(String id, String text, String tip, Runnable action) {
        Button b = new Button(text);
        b.setId(id);
        b.setTooltip(new Tooltip(tip));
        b.setOnAction(e -> action.run());
        return b;
    }
}
