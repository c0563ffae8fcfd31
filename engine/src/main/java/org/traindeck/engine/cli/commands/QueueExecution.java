package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.traindeck.engine.api.QueueHandle;
import org.traindeck.engine.api.QueueListener;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.queue.QueueOutcome;
import org.traindeck.engine.api.runs.RunResult;

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

    private final Duration stopLimit;
    /** How the user continues after a stop: "run the queue again". */
    private final String again;

    private volatile QueueHandle queue;

    private QueueExecution(PrintStream out, PrintStream err, boolean oneAtATime, Duration stopLimit, String again) {
        this.out = out;
        this.err = err;
        this.oneAtATime = oneAtATime;
        this.stopLimit = stopLimit;
        this.again = again;
    }

    /**
     * @param start      starts the queue (the engine's queue or sweep) with the listener it is given
     * @param oneAtATime whether the queue trains one run at a time (then each run's progress is printed)
     * @param stopLimit  how long a signal waits for the runs' stop checkpoints
     * @param again      how the user continues after a stop ("run the queue again")
     */
    static QueueOutcome run(
            Function<QueueListener, QueueHandle> start,
            boolean oneAtATime,
            Duration stopLimit,
            String again,
            PrintStream out,
            PrintStream err)
            throws IOException {
        QueueExecution execution = new QueueExecution(out, err, oneAtATime, stopLimit, again);
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

    /**
     * Ctrl-C or SIGTERM: the runs in progress stop with a checkpoint and the queue records them as stopped, within
     * {@link #stopLimit} (or until a second signal); a run still going then is given up, its status and this message
     * naming its newest complete checkpoint, or saying there is none.
     */
    private void stopOnSignal() {
        QueueHandle q = queue;
        if (q == null || q.completion().isDone()) {
            return;
        }
        long deadline = StopWait.deadline(stopLimit);
        StopWait wait = StopWait.begin();
        List<RunHandle> runs = List.copyOf(running.values());
        for (RunHandle run : runs) {
            err.println("traindeck: stopping: saving a checkpoint of "
                    + run.config().name() + " at step "
                    + run.currentStep() + " (up to " + stopLimit.toSeconds()
                    + " s; a second Ctrl-C or SIGTERM ends it at once)…");
        }
        err.flush();
        q.requestStop();
        StopWait.Outcome waited = StopWait.Outcome.DONE;
        for (RunHandle run : runs) {
            if (waited == StopWait.Outcome.DONE) {
                waited = wait.await(run.completion(), deadline);
            }
            RunResult r = run.completion().isDone()
                    ? run.completion().join()
                    : run.giveUp(
                            waited == StopWait.Outcome.LIMIT
                                    ? "it did not stop within " + stopLimit.toSeconds() + " s"
                                    : "a second signal ended the stop before its checkpoint was written");
            err.println("traindeck: " + run.config().name() + ": "
                    + (r == null
                            ? "still stopping in its own process, which saves its checkpoint by itself"
                                    + " (traindeck checkpoints " + run.runDir() + " lists what it saved)"
                            : ForegroundRun.ended(r)));
        }
        // the queue file records each run as stopped once its run has ended: a short wait, the runs are done
        if (wait.await(q.completion(), Math.max(deadline, System.nanoTime() + QUEUE_RECORD_NANOS))
                != StopWait.Outcome.DONE) {
            err.println("traindeck: the queue file could not record the stop in time: " + again
                    + " continues from the newest checkpoints all the same");
        }
        err.println("traindeck: stopped; " + again + " to continue");
        err.flush();
    }

    /** How long the queue may take to record its stopped runs once they have ended. */
    private static final long QUEUE_RECORD_NANOS = Duration.ofSeconds(10).toNanos();
}
