package org.traindeck.app.ui;

import java.nio.file.Path;

/**
 * Everything that asks the user something through a window of its own. The app uses file choosers and alerts; tests
 * answer through a double, so the real scene can be driven without native dialogs.
 */
public interface Dialogs {

    /** A JSON config to open, or null when cancelled. */
    Path chooseConfigToOpen(Path folder);

    /** Where to save the config, or null when cancelled. */
    Path chooseConfigToSave(Path folder, String suggestedName);

    /** A sweep file to run, or null when cancelled. */
    Path chooseSweepToRun(Path folder);

    /**
     * A checkpoint file or a run folder to resume, or null when cancelled.
     *
     * @param newest the newest valid checkpoint of the run on screen, chosen when the picker opens; null for none
     *     (the picker opens at {@code folder} then)
     */
    Path chooseResumeTarget(Path folder, Path newest);

    /** A run folder to open and show, or null when cancelled. */
    Path chooseRunFolder(Path folder);

    /** TensorBoard logs another tool wrote (a folder of event files) to open beside TrainDeck's runs, or null. */
    Path chooseTensorBoardLogs(Path folder);

    /** Where to export a chart, or null when cancelled. */
    Path chooseExportFile(Path folder, String suggestedName);

    /** What the user chose when going on would lose unsaved edits. */
    enum UnsavedChoice {
        SAVE,
        DISCARD,
        CANCEL
    }

    /** Unsaved edits would be lost by {@code what} ("Open another config?"): save them first, discard them, or cancel. */
    UnsavedChoice askAboutUnsaved(String what);

    /** What the user chose when quitting would lose something. */
    enum QuitChoice {
        SAVE_AND_QUIT,
        QUIT,
        CANCEL
    }

    /**
     * One question before quitting, saying everything that would be lost or stopped; {@code canSave} offers to save
     * the config first.
     */
    QuitChoice askBeforeQuit(String message, boolean canSave);

    /** Asks before doing something that cannot be undone: true to go on. */
    boolean confirm(String title, String message);

    /** Tells the user something went wrong (non-blocking where possible). */
    void showError(String title, String message);

    /** Tells the user something worth reading (Help): a title and a text of a few lines. */
    void showInfo(String title, String message);

    /** Shows a folder in the desktop's file manager (never waits for it). */
    void showFolder(Path folder);
}
