package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.runs.RunResult;

/**
 * One run trained in the foreground, as {@code train} and {@code resume} do: its progress, a line when it ends, and
 * Ctrl-C, SIGTERM or a logout stopping it with a checkpoint; the JVM then exits with 130 (SIGINT) or 143 (SIGTERM).
 */
final class ForegroundRun {

    private final CliContext cli;

    ForegroundRun(CliContext cli) {
        this.cli = cli;
    }

    /** Trains the prepared run to its end and says how it ended; returns the exit code. */
    int execute(RunHandle run) {
        cli.out().println("run folder: " + run.runDir());
        run.subscribeLossless(new ProgressPrinter(cli.out(), run.config(), System.console() != null));
        Thread hook = new Thread(() -> stopOnSignal(run), "traindeck-stop-on-signal");
        Runtime.getRuntime().addShutdownHook(hook);
        // on its own thread, so that a run the watchdog gives up cannot keep this command from ending
        run.start();
        RunResult result;
        try {
            result = run.completion().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            run.requestStop();
            return ExitCodes.RUN_FAILED;
        } catch (ExecutionException e) {
            // a run reports its own failures in its result; this is a bug, said as one
            throw new IllegalStateException("the run ended without a result", e.getCause());
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down already (Ctrl-C): the run has stopped cleanly
        }
        printEnd(result);
        return exitCode(result);
    }

    private void printEnd(RunResult result) {
        switch (result.status()) {
            case FINISHED -> {
                cli.out()
                        .println(String.format(
                                Locale.ROOT,
                                "finished: %d steps in %.1f s; metrics in %s",
                                result.steps(),
                                result.elapsedSeconds(),
                                result.runDir()));
                cli.out().println(energyLine(result));
            }
            case STOPPED ->
                cli.out()
                        .println("stopped: " + result.message()
                                + (result.lastCheckpoint() == null
                                        ? ""
                                        : "; resume with: traindeck resume " + result.runDir()));
            case INCOMPLETE -> cli.err().println("error: " + result.message());
            case FAILED -> cli.err().println("error: " + result.message());
        }
    }

    private static int exitCode(RunResult result) {
        if (result.status() == RunResult.Status.INCOMPLETE) {
            return ExitCodes.FILES_INCOMPLETE;
        }
        if (result.status() == RunResult.Status.FAILED && result.message().startsWith("invalid input")) {
            return ExitCodes.INVALID_INPUT;
        }
        return result.succeeded() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    /** The run's energy as its folder records it, by stage, or why it could not be measured: the last line said. */
    private String energyLine(RunResult result) {
        try {
            return cli.engine().pastRuns().energy(result.runDir()).summary();
        } catch (IOException e) {
            return "energy: n/a (its record cannot be read: " + e.getMessage() + ")";
        }
    }

    /**
     * Ctrl-C, SIGTERM or a logout: the JVM is shutting down, so the run is asked to stop and this hook waits (at most
     * the context's stop limit, or until a second signal) for its stop checkpoint. A run that did not stop in time is
     * given up: its status and this message name the newest complete checkpoint, or say there is none.
     */
    private void stopOnSignal(RunHandle run) {
        if (run.completion().isDone()) {
            return;
        }
        long deadline = StopWait.deadline(cli.stopLimit());
        StopWait wait = StopWait.begin();
        cli.err()
                .println("traindeck: stopping: saving a checkpoint of step " + run.currentStep() + " (up to "
                        + cli.stopLimit().toSeconds() + " s; a second Ctrl-C or SIGTERM ends it at once)…");
        cli.err().flush();
        run.requestStop();
        StopWait.Outcome waited = wait.await(run.completion(), deadline);
        RunResult r = waited == StopWait.Outcome.DONE
                ? run.completion().join()
                : run.giveUp(
                        waited == StopWait.Outcome.LIMIT
                                ? "the run did not stop within "
                                        + cli.stopLimit().toSeconds() + " s"
                                : "a second signal ended the stop before its checkpoint was written");
        cli.err().println("traindeck: " + ended(r));
        cli.err().flush();
    }

    /** How a run stopped by a signal ended, naming only a checkpoint that is there. */
    static String ended(RunResult r) {
        Path c = r.lastCheckpoint();
        String resume = c == null ? "" : "; resume with: traindeck resume " + r.runDir();
        String name = c == null ? "" : c.getFileName().toString();
        if (r.status() == RunResult.Status.STOPPED && r.message().equals("stopped at step " + r.steps())) {
            return r.message()
                    + (c == null
                            ? "; no checkpoint was written"
                            : r.checkpointedLastStep()
                                    ? "; saved " + name
                                    : "; its stop checkpoint could not be written, the newest is " + name)
                    + resume;
        }
        if (r.status() == RunResult.Status.FINISHED) {
            return "finished at step " + r.steps() + (c == null ? "" : "; its last checkpoint is " + name);
        }
        return r.status().name().toLowerCase(Locale.ROOT) + ": " + r.message() + resume;
    }
}
