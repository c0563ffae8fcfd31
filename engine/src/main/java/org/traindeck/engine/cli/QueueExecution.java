package org.traindeck.engine.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.traindeck.engine.api.QueueHandle;
import org.traindeck.engine.api.QueueListener;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.queue.QueueEntry;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.train.RunResult;

/**
 * Runs a queue in the foreground as {@code traindeck train} runs one config: progress of each run, a line when each
 * ends, and Ctrl-C or SIGTERM stopping the run in progress with a checkpoint (the queue then resumes it next time).
 */
final class QueueExecution implements QueueListener {

    private final PrintStream out;
    private final PrintStream err;
    /** The runs training now, by queue entry, for the stop on a signal. */
    private final Map<Integer, RunHandle> running = new ConcurrentHashMap<>();
    /** Runs trained at once would interleave their epoch lines: then only their starts and ends show. */
    private final boolean oneAtATime;

    private volatile QueueHandle queue;

    private QueueExecution(PrintStream out, PrintStream err, boolean oneAtATime) {
        this.out = out;
        this.err = err;
        this.oneAtATime = oneAtATime;
    }

    /**
     * @param start      starts the queue (the engine's queue or sweep) with the listener it is given
     * @param oneAtATime whether the queue trains one run at a time (then each run's progress is printed)
     */
    static QueueRunner.Outcome run(
            Function<QueueListener, QueueHandle> start, boolean oneAtATime, PrintStream out, PrintStream err)
            throws IOException {
        QueueExecution execution = new QueueExecution(out, err, oneAtATime);
        Thread hook = new Thread(execution::stopOnSignal, "traindeck-stop-queue-on-signal");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            execution.queue = start.apply(execution);
            return execution.queue.completion().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            execution.queue.requestStop();
            throw new IOException("interrupted while the queue ran; the run in progress stops with a checkpoint", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("the queue ended without an outcome", e.getCause());
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down already (Ctrl-C): the run in progress has stopped with its checkpoint
            }
        }
    }

    @Override
    public void starting(QueueEntry entry, RunHandle run, boolean resumed) {
        running.put(entry.id(), run);
        out.println("== " + entry.label() + (resumed ? ": resuming in " : ": run folder ") + run.runDir() + " on "
                + run.config().devices().describe() + (entry.message() == null ? "" : " (" + entry.message() + ")"));
        if (oneAtATime) {
            run.subscribeLossless(new ProgressPrinter(out, run.config(), System.console() != null));
        }
    }

    @Override
    public void ended(QueueEntry entry, RunResult result) {
        running.remove(entry.id());
        if (result == null) {
            err.println("== " + entry.label() + ": " + entry.message());
        } else {
            out.println(String.format(
                    Locale.ROOT,
                    "== %s: %s, %d steps in %.1f s%s",
                    entry.label(),
                    entry.status().name().toLowerCase(Locale.ROOT),
                    result.steps(),
                    result.elapsedSeconds(),
                    result.status() == RunResult.Status.FINISHED
                                    || result.message().isEmpty()
                            ? ""
                            : " (" + result.message() + ")"));
        }
    }

    private void stopOnSignal() {
        QueueHandle q = queue;
        if (q == null) {
            return;
        }
        List<RunHandle> runs = List.copyOf(running.values());
        q.requestStop();
        for (RunHandle run : runs) {
            if (run.completion().isDone()) {
                continue;
            }
            err.println("traindeck: stopping the queue: saving a checkpoint of "
                    + run.config().name() + " at step " + run.currentStep() + " (up to " + Main.STOP_WAIT_SECONDS
                    + " s); run the queue again to continue");
            err.flush();
            try {
                run.completion().get(Main.STOP_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                err.println("traindeck: " + run.config().name() + " did not stop cleanly (" + e
                        + "); its checkpoints: traindeck checkpoints " + run.runDir());
            }
        }
        err.flush();
    }
}
