package org.traindeck.app;

import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.app.ui.Dialogs;
import org.traindeck.engine.config.ValidationResult;

/**
 * New, Open, Recent, Save and Save As on the config open in the window, remembering the folder and recent files.
 * Files are read and written by the task executor; the document changes when that is done.
 */
final class ConfigFileActions {

    static final String NEW_CONFIG = """
            {
              "name": "my-run",
              "outputDir": "runs",
              "seed": 42,
              "devices": "cpu",
              "model": { "type": "mlp", "hidden": [64] },
              "data": { "train": { "type": "synthetic", "samples": 2000, "features": 16, "numClasses": 4 }, "validationSplit": 0.2 },
              "stages": [ { "name": "main", "epochs": 5, "batchSize": 32, "optimizer": { "type": "adam", "learningRate": 0.001 } } ]
            }
            """;

    private Runnable replaced = () -> {};
    private final ConfigDocument document;
    private final Dialogs dialogs;
    private final AppPreferences preferences;
    private final TaskExecutor tasks;
    private final MenuButton recent = new MenuButton("Recent");

    ConfigFileActions(ConfigDocument document, Dialogs dialogs, AppPreferences preferences, TaskExecutor tasks) {
        this.document = document;
        this.dialogs = dialogs;
        this.preferences = preferences;
        this.tasks = tasks;
        recent.setId("recent");
    }

    MenuButton recentMenu() {
        return recent;
    }

    /** Opens the given config, else the digits sample, else a new config. */
    void openInitial(Path initial, Path home) {
        updateRecent();
        Path sample = home.resolve("sample-configs/digits-mlp.json");
        tasks.execute(
                () -> {
                    Path file = initial != null ? initial : Files.isRegularFile(sample) ? sample : null;
                    return file == null ? null : new Opened(file, ConfigDocument.read(file));
                },
                opened -> {
                    if (opened == null) {
                        document.load(NEW_CONFIG, null);
                    } else {
                        show(opened);
                    }
                },
                e -> {
                    dialogs.showError("Cannot open " + (initial != null ? initial : sample), e.getMessage());
                    document.load(NEW_CONFIG, null);
                });
    }

    private record Opened(Path file, String text) {}

    /** Who hears that another config (opened or new) replaced the one shown. */
    void onReplaced(Runnable listener) {
        this.replaced = listener;
    }

    private void show(Opened opened) {
        document.load(opened.text(), opened.file().toAbsolutePath());
        replaced.run();
        preferences.addRecent(opened.file());
        updateRecent();
    }

    Path lastFolder() {
        Path last = preferences.lastFolder();
        return last != null && Files.isDirectory(last) ? last : document.baseDir();
    }

    void newConfig() {
        afterUnsavedEdits("Start a new config?", () -> {
            document.load(NEW_CONFIG, null);
            replaced.run();
        });
    }

    void openConfig() {
        afterUnsavedEdits("Open another config?", () -> {
            Path file = dialogs.chooseConfigToOpen(lastFolder());
            if (file != null) {
                openFile(file);
            }
        });
    }

    /** Runs {@code then} once unsaved edits are saved or given up, as the user chooses (the same three answers as Quit). */
    private void afterUnsavedEdits(String what, Runnable then) {
        if (!document.isDirty()) {
            then.run();
            return;
        }
        switch (dialogs.askAboutUnsaved(what)) {
            case SAVE ->
                save(() -> {
                    if (!document.isDirty()) {
                        then.run();
                    }
                });
            case DISCARD -> then.run();
            case CANCEL -> {}
        }
    }

    void openFile(Path file) {
        tasks.execute(
                () -> new Opened(file, ConfigDocument.read(file)),
                opened -> {
                    preferences.lastFolder(file.toAbsolutePath().getParent());
                    show(opened);
                },
                e -> dialogs.showError("Cannot open " + file, e.getMessage()));
    }

    private void updateRecent() {
        recent.getItems().clear();
        for (Path p : preferences.recentFiles()) {
            MenuItem item = new MenuItem(p.toString());
            item.setOnAction(e -> afterUnsavedEdits("Open " + p.getFileName() + "?", () -> openFile(p)));
            recent.getItems().add(item);
        }
        recent.setDisable(recent.getItems().isEmpty());
    }

    void save() {
        save(() -> {});
    }

    /** Saves (asking where when the config has no file yet), then runs {@code then} once the file is written. */
    void save(Runnable then) {
        if (document.fileProperty().get() == null) {
            saveAs(then);
            return;
        }
        saveTo(document.fileProperty().get(), then);
    }

    void saveAs() {
        saveAs(() -> {});
    }

    private void saveAs(Runnable then) {
        Path file = dialogs.chooseConfigToSave(lastFolder(), suggestedName());
        if (file != null) {
            saveTo(file, then);
        }
    }

    private String suggestedName() {
        ValidationResult v = document.validationProperty().get();
        return (v != null && v.config() != null ? v.config().name() : "run-config") + ".json";
    }

    private void saveTo(Path file, Runnable then) {
        ConfigDocument.Save save = document.prepareSave(file);
        tasks.execute(
                save::write,
                () -> {
                    document.saved(save);
                    preferences.lastFolder(save.target().getParent());
                    preferences.addRecent(save.target());
                    updateRecent();
                    then.run();
                },
                e -> dialogs.showError(
                        "Cannot save " + file, e.getMessage() + "\nThe config is still open here, unsaved."));
    }
}
