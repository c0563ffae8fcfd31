package org.traindeck.app;

import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.ui.Dialogs;
import org.traindeck.engine.config.ValidationResult;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** New, Open, Recent, Save and Save As on the config open in the window, remembering the folder and recent files. */
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

    private final ConfigDocument document;
    private final Dialogs dialogs;
    private final AppPreferences preferences;
    private final MenuButton recent = new MenuButton("Recent");

    ConfigFileActions(ConfigDocument document, Dialogs dialogs, AppPreferences preferences) {
        this.document = document;
        this.dialogs = dialogs;
        this.preferences = preferences;
        recent.setId("recent");
    }

    MenuButton recentMenu() {
        return recent;
    }

    /** Opens the given config, else the digits sample, else a new config. */
    void openInitial(Path initial, Path home) {
        openFirst(initial, home);
        updateRecent();
    }

    private void openFirst(Path initial, Path home) {
        Path file = initial;
        if (file == null) {
            Path sample = home.resolve("sample-configs/digits-mlp.json");
            file = Files.isRegularFile(sample) ? sample : null;
        }
        if (file != null) {
            try {
                document.open(file);
                preferences.addRecent(file);
                return;
            } catch (IOException e) {
                dialogs.showError("Cannot open " + file, e.getMessage());
            }
        }
        document.load(NEW_CONFIG, null);
    }

    Path lastFolder() {
        Path last = preferences.lastFolder();
        return last != null && Files.isDirectory(last) ? last : document.baseDir();
    }

    void newConfig() {
        if (document.isDirty() && !dialogs.confirmDiscard("Start a new config?")) {
            return;
        }
        document.load(NEW_CONFIG, null);
    }

    void openConfig() {
        if (document.isDirty() && !dialogs.confirmDiscard("Open another config?")) {
            return;
        }
        Path file = dialogs.chooseConfigToOpen(lastFolder());
        if (file != null) {
            openFile(file);
        }
    }

    void openFile(Path file) {
        try {
            document.open(file);
            preferences.lastFolder(file.toAbsolutePath().getParent());
            preferences.addRecent(file);
            updateRecent();
        } catch (IOException e) {
            dialogs.showError("Cannot open " + file, e.getMessage());
        }
    }

    private void updateRecent() {
        recent.getItems().clear();
        for (Path p : preferences.recentFiles()) {
            MenuItem item = new MenuItem(p.toString());
            item.setOnAction(e -> {
                if (!document.isDirty() || dialogs.confirmDiscard("Open " + p.getFileName() + "?")) {
                    openFile(p);
                }
            });
            recent.getItems().add(item);
        }
        recent.setDisable(recent.getItems().isEmpty());
    }

    void save() {
        if (document.fileProperty().get() == null) {
            saveAs();
            return;
        }
        saveTo(document.fileProperty().get());
    }

    void saveAs() {
        Path file = dialogs.chooseConfigToSave(lastFolder(), suggestedName());
        if (file != null) {
            saveTo(file);
        }
    }

    private String suggestedName() {
        ValidationResult v = document.validationProperty().get();
        return (v != null && v.config() != null ? v.config().name() : "run-config") + ".json";
    }

    private void saveTo(Path file) {
        try {
            document.saveAs(file);
            preferences.lastFolder(file.toAbsolutePath().getParent());
            preferences.addRecent(file);
            updateRecent();
        } catch (IOException e) {
            dialogs.showError("Cannot save " + file, e.getMessage() + "\nThe config is still open here, unsaved.");
        }
    }
}
