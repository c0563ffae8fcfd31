package org.traindeck.app.tasks;

import java.util.concurrent.Callable;
import java.util.function.Consumer;

/** Runs the work and its outcome at once on the calling thread: for view-model tests that read the result next. */
public final class CurrentThreadTaskExecutor implements TaskExecutor {

    @Override
    public <T> void execute(Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Exception> onFailure) {
        T result;
        try {
            result = work.call();
        } catch (Exception e) {
            onFailure.accept(e);
            return;
        }
        onSuccess.accept(result);
    }

    @Override
    public void shutdown() {}
}
