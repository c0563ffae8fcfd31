package org.traindeck.engine.cli;

import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.queue.QueueEntry;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.train.LiveRun;
import org.traindeck.engine.train.RunResult;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs a queue in the foreground as {@code traindeck train} runs one config: progress of each run, a line when each
 * ends, and Ctrl-C or SIGTERM stopping the run in progress with a checkpoint (the queue then resumes it next time).
 */
final class QueueExecution {

    private QueueExecution() {
    }

    static QueueRunner.Outcome run(QueueRunner runner, PrintStream out, PrintStream err) throws IOException {
        return run(runner, out, err, null);
    }

    /** @param also hears of every run too (a sweep's TensorBoard records), or null */
    static QueueRunner.Outcome run(QueueRunner runner, PrintStream out, PrintStream err, QueueRunner.Listener also) throws IOException {
        Thread hook = new Thread(() -> stopOnSignal(runner, err), "traindeck-stop-queue-on-signal");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return runner.runAll(new QueueRunner.Listener() {
                @Override
                public void starting(QueueEntry entry, LiveRun run, boolean resumed) {
                    out.println("== " + entry.label() + (resumed ? ": resuming in " : ": run folder ") + run.runDir()
                            + " on " + run.config().devices().describe() + (entry.message() == null ? "" : " (" + entry.message() + ")"));
                    if (runner.concurrency() == 1) {
                        // runs trained at once would interleave their epoch lines: then only their starts and ends show
                        run.subscribe(new ProgressPrinter(out, run.config(), System.console() != null), EventBus.Delivery.LOSSLESS);
                    }
                    if (also != null) {
                        also.starting(entry, run, resumed);
                    }
                }

                @Override
                public void ended(QueueEntry entry, RunResult result) {
                    if (result == null) {
                        err.println("== " + entry.label() + ": " + entry.message());
                    } else {
                        out.println(String.format(Locale.ROOT, "== %s: %s, %d steps in %.1f s%s", entry.label(),
                                entry.status().name().toLowerCase(Locale.ROOT), result.steps(), result.elapsedSeconds(),
                                result.status() == RunResult.Status.FINISHED || result.message().isEmpty() ? "" : " (" + result.message() + ")"));
                    }
                    if (also != null) {
                        also.ended(entry, result);
                    }
                }
            });
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down already (Ctrl-C): the run in progress has stopped with its checkpoint
            }
        }
    }

    private static void stopOnSignal(QueueRunner runner, PrintStream err) {
        List<LiveRun> runs = runner.running();
        runner.requestStop();
        for (LiveRun run : runs) {
            if (run.completion().isDone()) {
                continue;
            }
            err.println("traindeck: stopping the queue: saving a checkpoint of " + run.config().name() + " at step "
                    + run.currentStep() + " (up to " + Main.STOP_WAIT_SECONDS + " s); run the queue again to continue");
            err.flush();
            try {
                run.completion().get(Main.STOP_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                err.println("traindeck: the run did not stop cleanly (" + e + "); its last checkpoint is intact");
            }
        }
        err.flush();
    }
}
