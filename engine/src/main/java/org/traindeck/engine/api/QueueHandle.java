package org.traindeck.engine.api;

import org.traindeck.engine.queue.QueueRunner;

import java.util.concurrent.CompletableFuture;

/** A queue running on its own thread: stop it, and learn how it went. */
public final class QueueHandle {

    private final QueueRunner runner;
    private final CompletableFuture<QueueRunner.Outcome> completion;

    QueueHandle(QueueRunner runner, CompletableFuture<QueueRunner.Outcome> completion) {
        this.runner = runner;
        this.completion = completion;
    }

    /** Stops the run in progress after its step (with a checkpoint; the queue resumes it next time) and starts no other. */
    public void requestStop() {
        runner.requestStop();
    }

    /** Completes when the queue has nothing left to run or was stopped; exceptionally when its file cannot be used. */
    public CompletableFuture<QueueRunner.Outcome> completion() {
        return completion.copy();
    }
}
