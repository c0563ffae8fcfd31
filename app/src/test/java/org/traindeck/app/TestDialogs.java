package org.traindeck.app;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.traindeck.app.ui.Dialogs;

/** Answers the window's questions the way a test says, and records what was asked. */
public final class TestDialogs implements Dialogs {

    volatile Path toOpen;
    volatile Path toSave;
    volatile Path toResume;
    volatile Path runFolder;
    volatile Path export;
    volatile UnsavedChoice unsaved = UnsavedChoice.DISCARD;
    volatile boolean confirm = true;
    volatile QuitChoice quit = QuitChoice.QUIT;
    final List<String> asked = Collections.synchronizedList(new ArrayList<>());
    final List<String> errors = Collections.synchronizedList(new ArrayList<>());

    @Override
    public Path chooseConfigToOpen(Path folder) {
        asked.add("open");
        return toOpen;
    }

    volatile Path sweep;

    @Override
    public Path chooseSweepToRun(Path folder) {
        asked.add("sweep");
        return sweep;
    }

    @Override
    public Path chooseConfigToSave(Path folder, String suggestedName) {
        asked.add("save:" + suggestedName);
        return toSave;
    }

    volatile Path resumeFolder;

    volatile Path resumeNewest;

    @Override
    public Path chooseResumeTarget(Path folder, Path newest) {
        asked.add("resume");
        resumeFolder = folder;
        resumeNewest = newest;
        return toResume;
    }

    @Override
    public Path chooseRunFolder(Path folder) {
        asked.add("run-folder");
        return runFolder;
    }

    volatile Path tensorBoardLogs;

    @Override
    public Path chooseTensorBoardLogs(Path folder) {
        asked.add("tensorboard-logs");
        return tensorBoardLogs;
    }

    @Override
    public Path chooseExportFile(Path folder, String suggestedName) {
        asked.add("export:" + suggestedName);
        return export;
    }

    @Override
    public UnsavedChoice askAboutUnsaved(String what) {
        asked.add("unsaved:" + what);
        return unsaved;
    }

    @Override
    public QuitChoice askBeforeQuit(String message, boolean canSave) {
        asked.add("quit" + (canSave ? "(save offered)" : "") + ": " + message);
        return quit;
    }

    @Override
    public boolean confirm(String title, String message) {
        asked.add("confirm:" + title + ": " + message);
        return confirm;
    }

    @Override
    public void showError(String title, String message) {
        errors.add(title + ": " + message);
    }

    final List<String> infos = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void showInfo(String title, String message) {
        infos.add(title + ": " + message);
    }

    final List<Path> foldersShown = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void showFolder(Path folder) {
        foldersShown.add(folder);
    }
}
