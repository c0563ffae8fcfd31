package org.traindeck.engine.api;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.queue.QueueOutcome;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.train.LiveRun;

/** A queue running on its own thread: stop it, and learn how it went. */
public final class QueueHandle {

    private final QueueRunner runner;
    private final CompletableFuture<QueueOutcome> completion;

    private QueueHandle(QueueRunner runner, CompletableFuture<QueueOutcome> completion) {
        this.runner = runner;
        this.completion = completion;
    }

    /** Runs {@code runner}'s queue on a daemon thread; {@code also} (or null) hears of each run before {@code listener}. */
    static QueueHandle start(QueueRunner runner, QueueListener listener, QueueRunner.Listener also) {
        CompletableFuture<QueueOutcome> done = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        done.complete(runner.runAll(new QueueRunner.Listener() {
                            @Override
                            public void starting(QueueEntry entry, LiveRun run, boolean resumed) {
                                if (also != null) {
                                    also.starting(entry, run, resumed);
                                }
                                listener.starting(entry, new RunHandle(run), resumed);
                            }

                            @Override
                            public void ended(QueueEntry entry, RunResult result) {
                                if (also != null) {
                                    also.ended(entry, result);
                                }
                                listener.ended(entry, result);
                            }
                        }));
                    } catch (IOException | RuntimeException e) {
                        done.completeExceptionally(e);
                    }
                },
                "traindeck-queue");
        thread.setDaemon(true);
        thread.start();
        return new QueueHandle(runner, done);
    }

    /** Stops the run in progress after its step (with a checkpoint; the queue resumes it next time) and starts no other. */
    public void requestStop() {
        runner.requestStop();
    }

    /** Completes when the queue has nothing left to run or was stopped; exceptionally when its file cannot be used. */
    public CompletableFuture<QueueOutcome> completion() {
        return completion.copy();
    }
}
