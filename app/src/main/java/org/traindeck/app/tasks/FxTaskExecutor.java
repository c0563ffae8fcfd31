package org.traindeck.app.tasks;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import javafx.application.Platform;

/**
 * One background thread, in submission order (a save then an open of the same file happen in that order), and the
 * outcome handed to the FX thread.
 */
public final class FxTaskExecutor implements TaskExecutor {

    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "traindeck-ui-worker");
        t.setDaemon(true);
        return t;
    });

    @Override
    public <T> void execute(Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Exception> onFailure) {
        try {
            worker.execute(() -> {
                T result;
                try {
                    result = work.call();
                } catch (Exception e) {
                    Platform.runLater(() -> onFailure.accept(e));
                    return;
                }
                Platform.runLater(() -> onSuccess.accept(result));
            });
        } catch (RejectedExecutionException e) {
            onFailure.accept(new IllegalStateException("TrainDeck is closing", e));
        }
    }

    @Override
    public void shutdown() {
        worker.shutdown();
    }
}
