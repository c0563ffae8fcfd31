package org.traindeck.engine.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import org.traindeck.engine.api.ConfigCheck;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunBusyException;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.profile.StepProfile;
import org.traindeck.engine.train.RunResult;
import org.traindeck.engine.train.TrainingRun;

/**
 * {@code traindeck} on the command line. Exit codes: 0 success (finished, or stopped with a checkpoint), 1 the run
 * failed, 2 invalid input (bad arguments, a config with errors, unreadable data, a run folder in use), 3 finished but
 * some files could not be written (a full disk), 130 / 143 stopped by Ctrl-C / SIGTERM after saving a checkpoint;
 * errors go to stderr without stack traces.
 */
public final class Main {

    public static final int OK = 0;
    public static final int RUN_FAILED = 1;
    public static final int INVALID_INPUT = 2;
    /** Trained to the end, but a metric file, the run log or a checkpoint could not be written. */
    public static final int FILES_INCOMPLETE = 3;
    /** How long Ctrl-C or SIGTERM waits for the stop checkpoint before the process exits anyway. */
    static final Duration STOP_LIMIT = Duration.ofSeconds(60);

    private final PrintStream out;
    private final PrintStream err;

    private final Engine engine;
    private final Duration stopLimit;

    Main(PrintStream out, PrintStream err) {
        this(out, err, Engine.local());
    }

    /** @param engine the engine every command goes through, as the app's do (a test's has fake devices or faults) */
    Main(PrintStream out, PrintStream err, Engine engine) {
        this(out, err, engine, STOP_LIMIT);
    }

    /** @param stopLimit how long a signal waits for the stop checkpoint (a test's is shorter than {@link #STOP_LIMIT}) */
    Main(PrintStream out, PrintStream err, Engine engine, Duration stopLimit) {
        this.out = out;
        this.err = err;
        this.engine = engine;
        this.stopLimit = stopLimit;
    }

    public static void main(String[] args) {
        System.exit(new Main(System.out, System.err).run(args));
    }

    int run(String[] args) {
        return Commands.commandLine(this).execute(args);
    }

    PrintStream out() {
        return out;
    }

    PrintStream err() {
        return err;
    }

    Engine engine() {
        return engine;
    }

    Duration stopLimit() {
        return stopLimit;
    }

    private RunConfig report(ValidationResult result) {
        for (ConfigProblem p : result.problems()) {
            // detail lines (a list of choices) indented under the problem they belong to
            err.println((p.isError() ? "error: " : "warning: ") + p.toString().replace("\n", "\n    "));
        }
        return result.isValid() ? result.config() : null;
    }

    int validate(String file, boolean summary, boolean expand) {
        ConfigCheck check = engine.check(Configs.load(Path.of(file)));
        RunConfig config = report(check.checked());
        if (config == null) {
            err.println(file + ": invalid");
            return INVALID_INPUT;
        }
        if (expand) {
            String graph = Configs.expandedModel(config.model());
            out.println(
                    graph == null ? "the " + config.model().type() + " shorthand has no layer graph to expand" : graph);
        }
        if (summary && check.summary() != null) {
            out.print(check.summary().toText());
            check.stageSummaries().forEach((stage, table) -> {
                out.println("stage " + stage + "'s own model:");
                out.print(table.toText());
            });
        }
        if (summary) {
            check.fits().lines().forEach(out::println);
        }
        if (report(new ValidationResult(config, check.fits().problems())) == null) {
            err.println(file + ": does not fit the devices' memory");
            return INVALID_INPUT;
        }
        out.println(file + ": valid (" + config.stages().size() + " stage(s), model "
                + config.model().type()
                + (check.summary() == null
                        ? ""
                        : String.format(
                                Locale.ROOT, ", %,d parameters", check.summary().parameters()))
                + ")");
        return OK;
    }

    int train(String file, DeviceSelection devices, String cluster, Integer executors) {
        ValidationResult parsed = Configs.load(Path.of(file));
        RunConfig config = report(parsed);
        if (config == null) {
            err.println(file + ": invalid, nothing was run");
            return INVALID_INPUT;
        }
        if (cluster != null || executors != null) {
            String address = cluster != null ? cluster : config.parallel().cluster();
            if (address.isEmpty()) {
                err.println(
                        "error: --executors needs a cluster: --cluster spark://HOST:7077, or parallel.cluster in the config");
                return INVALID_INPUT;
            }
            if (!address.matches("[a-z][a-z0-9+.-]*://[^\\s/]+:\\d{1,5}")) {
                err.println("error: parallel.cluster: \"" + address
                        + "\" is not a cluster address such as spark://HOST:7077 (with --cluster " + address + ")");
                return INVALID_INPUT;
            }
            config = config.withParallel(config.parallel()
                    .withCluster(
                            address,
                            executors != null ? executors : config.parallel().executors()));
            ValidationResult again = Configs.revalidate(config, parsed.locations());
            if (!again.isValid()) {
                again.errors().forEach(p -> err.println("error: " + p + " (with --cluster " + address + ")"));
                return INVALID_INPUT;
            }
        }
        if (devices != null) {
            config = config.withDevices(devices);
            ValidationResult again = Configs.revalidate(config, parsed.locations());
            if (!again.isValid()) {
                again.errors()
                        .forEach(p -> err.println("error: " + p + " (with --devices " + devices.describe() + ")"));
                return INVALID_INPUT;
            }
            again.warnings().forEach(p -> err.println("warning: " + p));
        }
        RunHandle run;
        try {
            // the model is checked against the data and the devices' memory there, once, after ND4J is set up as for
            // the run
            // the overrides change devices and the cluster only: the file's lines still locate everything else
            run = engine.openRun(new ValidationResult(config, List.of(), parsed.locations()));
        } catch (InvalidConfigException e) {
            e.problems().forEach(p -> err.println("error: " + p));
            err.println(file + ": nothing was run");
            return INVALID_INPUT;
        } catch (IOException e) {
            err.println("error: cannot create the run folder under " + config.outputPath() + ": " + e.getMessage());
            return RUN_FAILED;
        }
        return execute(run);
    }

    /** The most steps a profile takes: a profile is minutes at most, not a run. */
    static final int MAX_PROFILE_STEPS = 10_000;

    int profile(String file, int steps, boolean ops) {
        if (steps < 1 || steps > MAX_PROFILE_STEPS) {
            err.println("error: --steps: needs a whole number from 1 to " + MAX_PROFILE_STEPS + ", not " + steps);
            return INVALID_INPUT;
        }
        ValidationResult parsed = Configs.load(Path.of(file));
        if (report(parsed) == null) {
            err.println(file + ": invalid, nothing was profiled");
            return INVALID_INPUT;
        }
        StepProfile profile;
        try {
            profile = engine.profile(parsed, steps, ops);
        } catch (InvalidConfigException e) {
            e.problems().forEach(p -> err.println("error: " + p));
            err.println(file + ": nothing was profiled");
            return INVALID_INPUT;
        } catch (RuntimeException | OutOfMemoryError e) {
            err.println("error: profiling " + file + " failed: " + e);
            return RUN_FAILED;
        }
        out.print(profile.toText());
        return OK;
    }

    int resume(
            String target,
            Integer epochs,
            Path newConfig,
            DeviceSelection devices,
            String cluster,
            boolean fromAnotherRun) {
        if (newConfig != null) {
            ValidationResult checked = Configs.load(newConfig);
            checked.problems().forEach(p -> err.println((p.isError() ? "error: " : "warning: ") + p));
            if (!checked.isValid()) {
                err.println(newConfig + ": invalid, nothing was resumed");
                return INVALID_INPUT;
            }
        }
        RunHandle run;
        try {
            run = engine.resume(
                    Path.of(target),
                    new TrainingRun.ResumeOptions(newConfig, epochs, devices, cluster, fromAnotherRun));
        } catch (CheckpointException | RunBusyException e) {
            err.println("error: " + e.getMessage());
            return INVALID_INPUT;
        } catch (IOException e) {
            err.println("error: cannot resume " + target + ": " + e.getMessage());
            return RUN_FAILED;
        }
        return execute(run);
    }

    /** The run's energy as its folder records it, by stage, or why it could not be measured: the last line said. */
    private String energyLine(RunResult result) {
        try {
            return engine().energy(result.runDir()).summary();
        } catch (IOException e) {
            return "energy: n/a (its record cannot be read: " + e.getMessage() + ")";
        }
    }

    private int execute(RunHandle run) {
        out.println("run folder: " + run.runDir());
        run.subscribeLossless(new ProgressPrinter(out, run.config(), System.console() != null));
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
            return RUN_FAILED;
        } catch (ExecutionException e) {
            // a run reports its own failures in its result; this is a bug, said as one
            throw new IllegalStateException("the run ended without a result", e.getCause());
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down already (Ctrl-C): the run has stopped cleanly
        }
        switch (result.status()) {
            case FINISHED -> {
                out.println(String.format(
                        Locale.ROOT,
                        "finished: %d steps in %.1f s; metrics in %s",
                        result.steps(),
                        result.elapsedSeconds(),
                        result.runDir()));
                out.println(energyLine(result));
            }
            case STOPPED ->
                out.println("stopped: " + result.message()
                        + (result.lastCheckpoint() == null
                                ? ""
                                : "; resume with: traindeck resume " + result.runDir()));
            case INCOMPLETE -> err.println("error: " + result.message());
            case FAILED -> err.println("error: " + result.message());
        }
        if (result.status() == RunResult.Status.INCOMPLETE) {
            return FILES_INCOMPLETE;
        }
        if (result.status() == RunResult.Status.FAILED && result.message().startsWith("invalid input")) {
            return INVALID_INPUT;
        }
        return result.succeeded() ? OK : RUN_FAILED;
    }

    /**
     * Ctrl-C, SIGTERM or a logout: the JVM is shutting down, so the run is asked to stop and this hook waits (at most
     * {@link #stopLimit}, or until a second signal) for its stop checkpoint; the JVM then exits with 130 (SIGINT) or
     * 143 (SIGTERM). A run that did not stop in time is given up: its status and this message name the newest complete
     * checkpoint, or say there is none.
     */
    private void stopOnSignal(RunHandle run) {
        if (run.completion().isDone()) {
            return;
        }
        long deadline = StopWait.deadline(stopLimit);
        StopWait wait = StopWait.begin();
        err.println("traindeck: stopping: saving a checkpoint of step " + run.currentStep() + " (up to "
                + stopLimit.toSeconds() + " s; a second Ctrl-C or SIGTERM ends it at once)…");
        err.flush();
        run.requestStop();
        StopWait.Outcome waited = wait.await(run.completion(), deadline);
        RunResult r = waited == StopWait.Outcome.DONE
                ? run.completion().join()
                : run.giveUp(
                        waited == StopWait.Outcome.LIMIT
                                ? "the run did not stop within " + stopLimit.toSeconds() + " s"
                                : "a second signal ended the stop before its checkpoint was written");
        err.println("traindeck: " + ended(r));
        err.flush();
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
