package org.traindeck.app.ui;

import java.awt.Desktop;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import javafx.application.Platform;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.layout.Region;
import javafx.stage.DirectoryChooser;
import javafx.stage.FileChooser;
import javafx.stage.Modality;
import javafx.stage.Window;

/** {@link Dialogs} with JavaFX's file choosers and alerts. */
public final class FxDialogs implements Dialogs {

    private final Window owner;

    public FxDialogs(Window owner) {
        this.owner = owner;
    }

    private static File folder(Path p) {
        return p != null && Files.isDirectory(p) ? p.toFile() : null;
    }

    private static Path path(File f) {
        return f == null ? null : f.toPath();
    }

    @Override
    public Path chooseConfigToOpen(Path folder) {
        return openJson("Open a run config", "Run configs (*.json)", folder);
    }

    @Override
    public Path chooseSweepToRun(Path folder) {
        return openJson("Run a sweep", "Sweep files (*.json)", folder);
    }

    private Path openJson(String title, String kind, Path folder) {
        FileChooser c = new FileChooser();
        c.setTitle(title);
        c.setInitialDirectory(folder(folder));
        c.getExtensionFilters()
                .addAll(
                        new FileChooser.ExtensionFilter(kind, "*.json"),
                        new FileChooser.ExtensionFilter("All files", "*"));
        return path(c.showOpenDialog(owner));
    }

    @Override
    public Path chooseConfigToSave(Path folder, String suggestedName) {
        FileChooser c = new FileChooser();
        c.setTitle("Save the run config");
        c.setInitialDirectory(folder(folder));
        c.setInitialFileName(suggestedName);
        c.getExtensionFilters().add(new FileChooser.ExtensionFilter("Run configs (*.json)", "*.json"));
        return path(c.showSaveDialog(owner));
    }

    @Override
    public Path chooseResumeTarget(Path folder, Path newest) {
        FileChooser c = new FileChooser();
        c.setTitle("Resume from a checkpoint (cancel to pick a run folder instead)");
        c.setInitialDirectory(folder(newest != null ? newest.getParent() : folder));
        if (newest != null) {
            c.setInitialFileName(newest.getFileName().toString());
        }
        c.getExtensionFilters().add(new FileChooser.ExtensionFilter("TrainDeck checkpoints (*.tdckpt)", "*.tdckpt"));
        Path file = path(c.showOpenDialog(owner));
        if (file != null) {
            return file;
        }
        return chooseFolder("Resume a run: pick its folder (its latest valid checkpoint is used)", folder);
    }

    @Override
    public Path chooseRunFolder(Path folder) {
        return chooseFolder("Open a run folder", folder);
    }

    @Override
    public Path chooseTensorBoardLogs(Path folder) {
        return chooseFolder("Open TensorBoard logs: pick the folder of events.out.tfevents.* files", folder);
    }

    private Path chooseFolder(String title, Path folder) {
        DirectoryChooser d = new DirectoryChooser();
        d.setTitle(title);
        d.setInitialDirectory(folder(folder));
        return path(d.showDialog(owner));
    }

    @Override
    public Path chooseExportFile(Path folder, String suggestedName) {
        FileChooser c = new FileChooser();
        c.setTitle("Export");
        c.setInitialDirectory(folder(folder));
        c.setInitialFileName(suggestedName);
        return path(c.showSaveDialog(owner));
    }

    @Override
    public UnsavedChoice askAboutUnsaved(String what) {
        Optional<ButtonBar.ButtonData> r =
                unsavedAlert(owner, what).showAndWait().map(ButtonType::getButtonData);
        if (r.isEmpty() || r.get() == ButtonBar.ButtonData.CANCEL_CLOSE) {
            return UnsavedChoice.CANCEL;
        }
        return r.get() == ButtonBar.ButtonData.YES ? UnsavedChoice.SAVE : UnsavedChoice.DISCARD;
    }

    @Override
    public QuitChoice askBeforeQuit(String message, boolean canSave) {
        Optional<ButtonBar.ButtonData> r =
                quitAlert(owner, message, canSave).showAndWait().map(ButtonType::getButtonData);
        if (r.isEmpty() || r.get() == ButtonBar.ButtonData.CANCEL_CLOSE) {
            return QuitChoice.CANCEL;
        }
        return r.get() == ButtonBar.ButtonData.YES ? QuitChoice.SAVE_AND_QUIT : QuitChoice.QUIT;
    }

    @Override
    public boolean confirm(String title, String message) {
        return confirmAlert(owner, title, message)
                .showAndWait()
                .filter(ButtonType.OK::equals)
                .isPresent();
    }

    @Override
    public void showError(String title, String message) {
        errorAlert(owner, title, message).show();
    }

    @Override
    public void showInfo(String title, String message) {
        infoAlert(owner, title, message).show();
    }

    /** The question before unsaved edits would be lost: Save (YES), Don't save (NO) or Cancel. */
    public static Alert unsavedAlert(Window owner, String what) {
        ButtonType save = new ButtonType("Save", ButtonBar.ButtonData.YES);
        ButtonType discard = new ButtonType("Don't save", ButtonBar.ButtonData.NO);
        return alert(
                owner,
                new Alert(
                        Alert.AlertType.CONFIRMATION,
                        what + "\nYour changes to the config are not saved.",
                        save,
                        discard,
                        ButtonType.CANCEL),
                "Unsaved changes",
                "Save your changes first?");
    }

    /** The one question before quitting: Save and quit (YES, when {@code canSave}), Quit (NO) or Cancel. */
    public static Alert quitAlert(Window owner, String message, boolean canSave) {
        ButtonType save = new ButtonType("Save and quit", ButtonBar.ButtonData.YES);
        ButtonType quit = new ButtonType("Quit", ButtonBar.ButtonData.NO);
        Alert a = canSave
                ? new Alert(Alert.AlertType.CONFIRMATION, message, save, quit, ButtonType.CANCEL)
                : new Alert(Alert.AlertType.CONFIRMATION, message, quit, ButtonType.CANCEL);
        return alert(owner, a, "Quit TrainDeck", "Quit TrainDeck?");
    }

    public static Alert confirmAlert(Window owner, String title, String message) {
        return alert(
                owner,
                new Alert(Alert.AlertType.CONFIRMATION, message, ButtonType.CANCEL, ButtonType.OK),
                title,
                title);
    }

    public static Alert errorAlert(Window owner, String title, String message) {
        return modeless(alert(owner, new Alert(Alert.AlertType.ERROR, message, ButtonType.OK), title, title));
    }

    /** Help's texts: resizable, as a long one may be read at any size. */
    public static Alert infoAlert(Window owner, String title, String message) {
        Alert a = alert(owner, new Alert(Alert.AlertType.INFORMATION, message, ButtonType.OK), title, title);
        a.setResizable(true);
        return modeless(a);
    }

    /**
     * A message nothing waits on is owned (it stays above the window) but not modal: on Linux a modal dialog freezes
     * its owner's size, and the window manager then un-maximizes a maximized window (JDK-8332222, fixed in JavaFX 23).
     */
    private static Alert modeless(Alert a) {
        a.initModality(Modality.NONE);
        return a;
    }

    private static Alert alert(Window owner, Alert a, String title, String header) {
        a.setTitle(title);
        a.setHeaderText(header);
        // a second line was cut off: the dialog may grow to its text
        a.getDialogPane().setMinHeight(Region.USE_PREF_SIZE);
        // Esc closes every dialog: one with only OK takes Esc as OK (a question has its Cancel for it)
        if (a.getButtonTypes().size() == 1
                && a.getDialogPane().lookupButton(a.getButtonTypes().get(0)) instanceof Button only) {
            only.setCancelButton(true);
        }
        if (owner != null) {
            a.initOwner(owner);
            if (owner.getScene() != null) {
                a.getDialogPane().getStylesheets().setAll(owner.getScene().getStylesheets());
            }
        }
        return a;
    }

    @Override
    public void showFolder(Path folder) {
        // xdg-open where there is one (Linux desktops), else the JDK's desktop support; off the FX thread either way
        Thread opener = new Thread(
                () -> {
                    try {
                        if (isLinux()) {
                            new ProcessBuilder("xdg-open", folder.toString())
                                    .inheritIO()
                                    .start();
                        } else if (Desktop.isDesktopSupported()
                                && Desktop.getDesktop().isSupported(Desktop.Action.OPEN)) {
                            Desktop.getDesktop().open(folder.toFile());
                        } else {
                            throw new IOException("this desktop has no file manager TrainDeck can ask");
                        }
                    } catch (IOException | RuntimeException e) {
                        Platform.runLater(() -> showError("Cannot open the folder", folder + ": " + e.getMessage()));
                    }
                },
                "traindeck-open-folder");
        opener.setDaemon(true);
        opener.start();
    }

    private static boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    }
}
