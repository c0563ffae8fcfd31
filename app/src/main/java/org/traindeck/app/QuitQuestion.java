package org.traindeck.app;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.traindeck.app.run.RunController;

/** Unsaved changes and a running run ask first, in one question that says both and offers to save. */
final class QuitQuestion {

    private QuitQuestion() {}

    /**
     * True when the window may close now. After Save and Quit it is false: {@code closeWindow} closes it once the file
     * is written.
     */
    static boolean mayClose(TabContext c, Runnable closeWindow) {
        boolean dirty = c.document().isDirty();
        boolean running = c.controller().stateProperty().get() != RunController.State.IDLE;
        if (!dirty && !running) {
            return true;
        }
        List<String> what = new ArrayList<>();
        if (running) {
            what.add("The run in progress stops; a checkpoint is saved first, so it can be resumed.");
        }
        if (dirty) {
            Path f = c.document().fileProperty().get();
            what.add("Your changes to " + (f == null ? "the new config" : f.getFileName()) + " are not saved.");
        }
        return switch (c.services().dialogs().askBeforeQuit(String.join("\n", what), dirty)) {
            case CANCEL -> false;
            case QUIT -> true;
            case SAVE_AND_QUIT -> {
                // the window closes once the file is written; a failed save leaves it open, with the error shown
                c.files().save(() -> {
                    if (!c.document().isDirty()) {
                        closeWindow.run();
                    }
                });
                yield false;
            }
        };
    }
}
