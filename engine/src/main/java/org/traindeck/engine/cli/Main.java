package org.traindeck.engine.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.InvalidPathException;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.cli.commands.CliContext;
import org.traindeck.engine.cli.commands.CommandRegistry;
import org.traindeck.engine.cli.commands.ExitCodes;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.train.NativeBackendException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code traindeck} on the command line: the commands of {@link CommandRegistry} as picocli subcommands (options and
 * arguments, generated help, bash completion). Exit codes: 0 success (finished, or stopped with a checkpoint), 1 the
 * run failed, 2 invalid input (bad arguments, a config with errors, unreadable data, a run folder in use), 3 finished
 * but some files could not be written (a full disk), 130 / 143 stopped by Ctrl-C / SIGTERM after saving a checkpoint.
 * Usage mistakes exit 2 with the command's usage; expected failures print "error: ..." and exit 2, never a stack trace.
 */
public final class Main {

    public static final int OK = ExitCodes.OK;
    public static final int RUN_FAILED = ExitCodes.RUN_FAILED;
    public static final int INVALID_INPUT = ExitCodes.INVALID_INPUT;
    /** Trained to the end, but a metric file, the run log or a checkpoint could not be written. */
    public static final int FILES_INCOMPLETE = ExitCodes.FILES_INCOMPLETE;
    /** How long Ctrl-C or SIGTERM waits for the stop checkpoint before the process exits anyway. */
    static final Duration STOP_LIMIT = Duration.ofSeconds(60);

    private static final String EXIT_CODES =
            "%nExit codes: 0 success (or stopped with a checkpoint), 1 a run failed, 2 invalid "
                    + "input (or the run folder is in use), 3 trained but some files could not be written (a full disk), 130 / 143 "
                    + "stopped by Ctrl-C / SIGTERM after saving a checkpoint.%n%nThrough the ./traindeck script also: gui [CONFIG] "
                    + "(the window) and bench (the benchmarks). Bash completion: source <(traindeck generate-completion)";

    private final CliContext context;

    Main(PrintStream out, PrintStream err) {
        this(out, err, Engine.local());
    }

    /** @param engine the engine every command goes through, as the app's do (a test's has fake devices or faults) */
    Main(PrintStream out, PrintStream err, Engine engine) {
        this(out, err, engine, STOP_LIMIT);
    }

    /** @param stopLimit how long a signal waits for the stop checkpoint (a test's is shorter than {@link #STOP_LIMIT}) */
    Main(PrintStream out, PrintStream err, Engine engine, Duration stopLimit) {
        this.context = new CliContext(out, err, engine, stopLimit);
    }

    public static void main(String[] args) {
        System.exit(new Main(System.out, System.err).run(args));
    }

    int run(String[] args) {
        return commandLine().execute(args);
    }

    /** The command table: every command of the registry under the top-level {@code traindeck}. */
    CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Root(context.err()));
        CommandRegistry.COMMANDS.forEach(entry -> cli.addSubcommand(subcommand(entry)));
        cli.registerConverter(DeviceSelection.class, Main::deviceSelection);
        cli.setUsageHelpWidth(110);
        cli.setOut(new PrintWriter(context.out(), true));
        cli.setErr(new PrintWriter(context.err(), true));
        cli.setExecutionExceptionHandler((e, command, parsed) -> expectedFailure(e));
        return cli;
    }

    private CommandLine subcommand(CommandRegistry.Entry entry) {
        CommandLine command = new CommandLine(entry.command().apply(context));
        entry.subcommands().forEach(sub -> command.addSubcommand(subcommand(sub)));
        return command;
    }

    private static DeviceSelection deviceSelection(String text) {
        DeviceSelection d = DeviceSelection.parse(text);
        if (d == null) {
            throw new CommandLine.TypeConversionException(
                    "'" + text + "' is not cpu, cpu:N (1 to 64), all, or GPU indices such as 0,1");
        }
        return d;
    }

    /** A failure the user can mend said as "error: ...", exit 2; anything else is a bug and goes up as one. */
    private int expectedFailure(Exception e) throws Exception {
        if (e instanceof InvalidConfigException invalid) {
            invalid.problems().forEach(p -> context.err().println("error: " + p));
        } else if (e instanceof InvalidPathException path) {
            context.err().println("error: " + Configs.pathAdvice(path));
        } else if (e instanceof IOException || e instanceof NativeBackendException) {
            context.err().println("error: " + e.getMessage());
        } else {
            throw e;
        }
        return INVALID_INPUT;
    }

    @Command(
            name = "traindeck",
            mixinStandardHelpOptions = true,
            versionProvider = Root.class,
            description = "Train neural networks on this machine's GPUs or CPU, and keep every run resumable.",
            footer = EXIT_CODES)
    static final class Root implements Callable<Integer>, CommandLine.IVersionProvider {
        private final PrintStream err;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        Root(PrintStream err) {
            this.err = err;
        }

        /** For picocli, which makes the version provider itself. */
        Root() {
            this(null);
        }

        @Override
        public Integer call() {
            spec.commandLine().usage(err);
            return INVALID_INPUT;
        }

        @Override
        public String[] getVersion() {
            return new String[] {"TrainDeck " + Engine.version()};
        }
    }
}
