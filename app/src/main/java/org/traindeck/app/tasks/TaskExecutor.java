package org.traindeck.app.tasks;

import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * Where the app's slow work goes (file reads and writes, the engine's calls), so the FX thread never waits on it.
 * The window uses {@link FxTaskExecutor}; view tests use {@link CurrentThreadTaskExecutor}, which runs everything at
 * once on the caller's thread, so a test reads the outcome on the next line.
 */
public interface TaskExecutor {

    /**
     * Runs {@code work} in the background, then {@code onSuccess} with its result or {@code onFailure} with what it
     * threw, both on the UI thread.
     */
    <T> void execute(Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Exception> onFailure);

    /** As {@link #execute}, for work with no result. */
    default void execute(ThrowingRunnable work, Runnable onSuccess, Consumer<? super Exception> onFailure) {
        execute(
                () -> {
                    work.run();
                    return null;
                },
                ignored -> onSuccess.run(),
                onFailure);
    }

    /** Lets queued work finish but takes no more. */
    void shutdown();

    /** Background work with no result. */
    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
