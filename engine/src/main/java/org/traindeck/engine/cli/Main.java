package org.traindeck.engine.cli;

import org.traindeck.engine.Version;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ConfigWriter;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.PathEncoding;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.HostProbe;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.train.RunResult;
import org.traindeck.engine.train.TrainingRun;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
    static final int STOP_WAIT_SECONDS = 60;

    private static final String USAGE = """
            Usage: traindeck <command> [options]

            Commands:
              validate CONFIG     check a run config and list every problem (path, line, column)
              train CONFIG [--devices D]
                                  train as the config says; metrics go to <outputDir>/<name>/;
                                  --devices overrides the config's: cpu, cpu:N (N CPU workers), all, or 0,1
              resume RUN_DIR|CHECKPOINT [--epochs N] [--config FILE] [--devices D]
                                  continue a run from its latest valid checkpoint (or the one given);
                                  --epochs trains the current stage for N epochs in all,
                                  --config takes safe changes (learning rate, epochs, devices, ...)
              checkpoints RUN_DIR list a run's checkpoints: stage, epoch, step, metric, valid or not
              runs [OUTPUT_DIR] [--json]
                                  the runs in an output folder (default: runs): status, steps, the
                                  monitored metric's best and last values, duration, start
              compare RUN RUN...  final and best metrics side by side, and the config keys that differ
              queue add CONFIG... [--output DIR]
                                  queue runs (in DIR/queue.json; default: each config's outputDir)
              queue run [--output DIR] [--devices D]
                                  run the queue (default DIR: runs) one run after another; a failed run
                                  does not stop it; an interrupted run is resumed, not restarted
              queue list [--output DIR]
                                  the queued runs and how each stands
              sweep SWEEP [--devices D]
                                  run every trial of a sweep file (grid or random) through its queue,
                                  then print the results, best first; run it again to continue it
              devices [--json]    list the GPUs and the CPU, with live memory, load and temperature
              devices --watch [--interval MS] [--samples N]
                                  stream device telemetry until Ctrl-C (or N samples)
              gui [CONFIG]        open the TrainDeck window (only through the ./traindeck script)
              bench               run the benchmarks and print the table (only through the ./traindeck script)
              --help              this help
              --version           TrainDeck's version

            Exit codes: 0 success (or stopped with a checkpoint), 1 the run failed, 2 invalid input
            (or the run folder is in use), 3 trained but some files could not be written (a full disk),
            130 / 143 stopped by Ctrl-C / SIGTERM after saving a checkpoint.
            """;

    private final PrintStream out;
    private final PrintStream err;

    private final NvidiaSmi smi;
    private final HostProbe probe;
    private final FaultPlan faults;

    Main(PrintStream out, PrintStream err) {
        this(out, err, NvidiaSmi.system(), new OshiHostProbe());
    }

    Main(PrintStream out, PrintStream err, NvidiaSmi smi, HostProbe probe) {
        this(out, err, smi, probe, FaultPlan.NONE);
    }

    /** @param faults failures a test injects into the runs this CLI starts */
    Main(PrintStream out, PrintStream err, NvidiaSmi smi, HostProbe probe, FaultPlan faults) {
        this.out = out;
        this.err = err;
        this.smi = smi;
        this.probe = probe;
        this.faults = faults;
    }

    public static void main(String[] args) {
        System.exit(new Main(System.out, System.err).run(args));
    }

    int run(String[] args) {
        if (args.length == 0) {
            err.print(USAGE);
            return INVALID_INPUT;
        }
        List<String> rest = new ArrayList<>(List.of(args).subList(1, args.length));
        try {
            return switch (args[0]) {
                case "--help", "-h", "help" -> {
                    out.print(USAGE);
                    yield OK;
                }
                case "--version" -> {
                    out.println("TrainDeck " + Version.get());
                    yield OK;
                }
                case "validate" -> validate(rest);
                case "train" -> train(rest);
                case "resume" -> resume(rest);
                case "checkpoints" -> CheckpointsCommand.list(rest, out, err);
                case "devices" -> DevicesCommand.run(rest, out, err, smi, probe);
                case "runs" -> RunsCommand.runs(rest, out, err);
                case "compare" -> RunsCommand.compare(rest, out, err);
                case "queue" -> QueueCommand.run(rest, out, err, new DeviceDiscovery(smi, probe), faults);
                case "sweep" -> SweepCommand.run(rest, out, err, new DeviceDiscovery(smi, probe), faults);
                default -> usageError("unknown command \"" + args[0] + "\"");
            };
        } catch (InvalidConfigException e) {
            e.problems().forEach(p -> err.println("error: " + p));
            return INVALID_INPUT;
        } catch (InvalidPathException e) {
            err.println("error: " + PathEncoding.advice(e));
            return INVALID_INPUT;
        } catch (IOException e) {
            err.println("error: " + e.getMessage());
            return INVALID_INPUT;
        }
    }

    private int usageError(String message) {
        return usageError(err, message);
    }

    static int usageError(PrintStream err, String message) {
        err.println("traindeck: " + message);
        err.print(USAGE);
        return INVALID_INPUT;
    }

    private String singleConfigArgument(List<String> args, String command) {
        List<String> positional = args.stream().filter(a -> !a.startsWith("--")).toList();
        List<String> flags = args.stream().filter(a -> a.startsWith("--")).toList();
        if (!flags.isEmpty()) {
            usageError(command + ": unknown option " + flags.get(0));
            return null;
        }
        if (positional.size() != 1) {
            usageError(command + " takes exactly one CONFIG file");
            return null;
        }
        return positional.get(0);
    }

    /** Validates a config file, printing its problems; null when it has errors. */
    private RunConfig load(String file) {
        ValidationResult result = ConfigParser.load(Path.of(file));
        for (ConfigProblem p : result.problems()) {
            err.println((p.isError() ? "error: " : "warning: ") + p);
        }
        return result.isValid() ? result.config() : null;
    }

    private int validate(List<String> args) {
        String file = singleConfigArgument(args, "validate");
        if (file == null) {
            return INVALID_INPUT;
        }
        RunConfig config = load(file);
        if (config == null) {
            err.println(file + ": invalid");
            return INVALID_INPUT;
        }
        out.println(file + ": valid (" + config.stages().size() + " stage(s), model " + config.model().type() + ")");
        return OK;
    }

    /** Takes "--devices D" out of the arguments; null when absent, or when D is not valid (reported). */
    private DeviceSelection devicesOption(List<String> args, String command, boolean[] bad) {
        int i = args.indexOf("--devices");
        if (i < 0) {
            return null;
        }
        if (i + 1 >= args.size()) {
            usageError(command + ": --devices needs a value: cpu, cpu:N, all, or GPU indices such as 0,1");
            bad[0] = true;
            return null;
        }
        DeviceSelection d = DeviceSelection.parse(args.get(i + 1));
        if (d == null) {
            usageError(command + ": --devices " + args.get(i + 1) + " is not cpu, cpu:N (1 to 64), all, or GPU indices such as 0,1");
            bad[0] = true;
            return null;
        }
        args.remove(i + 1);
        args.remove(i);
        return d;
    }

    private int train(List<String> args) {
        boolean[] bad = {false};
        List<String> rest = new ArrayList<>(args);
        DeviceSelection devices = devicesOption(rest, "train", bad);
        if (bad[0]) {
            return INVALID_INPUT;
        }
        String file = singleConfigArgument(rest, "train");
        if (file == null) {
            return INVALID_INPUT;
        }
        RunConfig config = load(file);
        if (config == null) {
            err.println(file + ": invalid, nothing was run");
            return INVALID_INPUT;
        }
        if (devices != null) {
            config = config.withDevices(devices);
            ValidationResult again = ConfigParser.parse(ConfigWriter.toJson(config), config.baseDir());
            if (!again.isValid()) {
                again.errors().forEach(p -> err.println("error: " + p + " (with --devices " + devices + ")"));
                return INVALID_INPUT;
            }
            again.warnings().forEach(p -> err.println("warning: " + p));
        }
        TrainingRun run;
        try {
            run = TrainingRun.prepare(config, new DeviceDiscovery(smi, probe), faults);
        } catch (IOException e) {
            err.println("error: cannot create the run folder under " + config.outputPath() + ": " + e.getMessage());
            return RUN_FAILED;
        }
        return execute(run);
    }

    private int resume(List<String> args) {
        boolean[] bad = {false};
        args = new ArrayList<>(args);
        DeviceSelection devices = devicesOption(args, "resume", bad);
        if (bad[0]) {
            return INVALID_INPUT;
        }
        String target = null;
        Integer epochs = null;
        Path newConfig = null;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--epochs") || a.equals("--config")) {
                if (i + 1 >= args.size()) {
                    return usageError("resume: " + a + " needs a value");
                }
                String v = args.get(++i);
                if (a.equals("--epochs")) {
                    if (!v.matches("\\d{1,7}") || Integer.parseInt(v) < 1) {
                        return usageError("resume: --epochs needs a whole number ≥ 1, not " + v);
                    }
                    epochs = Integer.parseInt(v);
                } else {
                    newConfig = Path.of(v);
                    ValidationResult checked = ConfigParser.load(newConfig);
                    checked.problems().forEach(p -> err.println((p.isError() ? "error: " : "warning: ") + p));
                    if (!checked.isValid()) {
                        err.println(v + ": invalid, nothing was resumed");
                        return INVALID_INPUT;
                    }
                }
            } else if (a.startsWith("--")) {
                return usageError("resume: unknown option " + a);
            } else if (target == null) {
                target = a;
            } else {
                return usageError("resume takes one RUN_DIR or CHECKPOINT");
            }
        }
        if (target == null) {
            return usageError("resume needs a RUN_DIR or CHECKPOINT");
        }
        TrainingRun run;
        try {
            run = TrainingRun.resume(Path.of(target), new TrainingRun.ResumeOptions(newConfig, epochs, devices),
                    new DeviceDiscovery(smi, probe), faults);
        } catch (CheckpointException | RunLock.BusyException e) {
            err.println("error: " + e.getMessage());
            return INVALID_INPUT;
        } catch (IOException e) {
            err.println("error: cannot resume " + target + ": " + e.getMessage());
            return RUN_FAILED;
        }
        return execute(run);
    }

    private int execute(TrainingRun run) {
        out.println("run folder: " + run.runDir());
        run.subscribe(new ProgressPrinter(out, run.config(), System.console() != null), EventBus.Delivery.LOSSLESS);
        Thread hook = new Thread(() -> stopOnSignal(run), "traindeck-stop-on-signal");
        Runtime.getRuntime().addShutdownHook(hook);
        // on its own thread, so that a run the watchdog gives up cannot keep this command from ending
        run.start();
        RunResult result;
        try {
            result = run.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            run.requestStop();
            return RUN_FAILED;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down already (Ctrl-C): the run has stopped cleanly
        }
        switch (result.status()) {
            case FINISHED -> out.println(String.format(Locale.ROOT, "finished: %d steps in %.1f s; metrics in %s",
                    result.steps(), result.elapsedSeconds(), result.runDir()));
            case STOPPED -> out.println("stopped: " + result.message()
                    + (result.lastCheckpoint() == null ? "" : "; resume with: traindeck resume " + result.runDir()));
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
     * {@link #STOP_WAIT_SECONDS} s) for its stop checkpoint; the JVM then exits with 130 (SIGINT) or 143 (SIGTERM).
     */
    private void stopOnSignal(TrainingRun run) {
        if (run.completion().isDone()) {
            return;
        }
        err.println("traindeck: stopping: saving a checkpoint of step " + run.currentStep() + " (up to " + STOP_WAIT_SECONDS + " s)…");
        err.flush();
        run.requestStop();
        try {
            RunResult r = run.completion().get(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
            err.println("traindeck: " + r.status().name().toLowerCase(Locale.ROOT) + " at step " + r.steps()
                    + (r.lastCheckpoint() == null ? "" : "; resume with: traindeck resume " + r.runDir()));
        } catch (TimeoutException e) {
            err.println("traindeck: the run did not stop within " + STOP_WAIT_SECONDS + " s; its last checkpoint is intact");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            err.println("traindeck: the run ended with an error while stopping: " + e.getCause());
        }
        err.flush();
    }
}
