package org.traindeck.app.tasks;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/** Holds the work until the test runs it: shows what happens before the background work is done, and after. */
public final class QueuedTaskExecutor implements TaskExecutor {

    private final Queue<Runnable> queued = new ArrayDeque<>();

    @Override
    public synchronized <T> void execute(
            Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Exception> onFailure) {
        queued.add(() -> new CurrentThreadTaskExecutor().execute(work, onSuccess, onFailure));
    }

    public synchronized int pending() {
        return queued.size();
    }

    /** Runs what is queued (and what that queues) on the calling thread. */
    public void runAll() {
        Runnable next;
        while ((next = poll()) != null) {
            next.run();
        }
    }

    private synchronized Runnable poll() {
        return queued.poll();
    }

    @Override
    public void shutdown() {}
}
