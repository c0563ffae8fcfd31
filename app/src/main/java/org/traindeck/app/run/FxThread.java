package org.traindeck.app.run;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import javafx.application.Platform;

/** Work handed to the FX thread from another one, which waits until it is done. */
final class FxThread {

    private FxThread() {}

    /** Runs {@code r} on the FX thread and returns when it has run; an interrupt stops the wait, not the work. */
    static void runAndWait(Runnable r) {
        FutureTask<Void> task = new FutureTask<>(r, null);
        Platform.runLater(task);
        try {
            task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }
}
