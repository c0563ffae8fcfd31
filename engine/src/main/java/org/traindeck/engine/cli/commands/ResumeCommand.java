package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.RunBusyException;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.train.ResumeOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code traindeck resume RUN_DIR|CHECKPOINT [--epochs N] [--config FILE] [--devices D] [--cluster ADDRESS]
 * [--from-another-run]}: the run continued in the foreground from its latest valid checkpoint or the one given.
 */
@Command(
        name = "resume",
        mixinStandardHelpOptions = true,
        description = "Continue a run from its latest valid checkpoint (or the one given).")
final class ResumeCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(paramLabel = "RUN_DIR|CHECKPOINT")
    String target;

    @Option(names = "--epochs", paramLabel = "N", description = "train the current stage for N epochs in all")
    Integer epochs;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "take safe changes from this config (learning rate, epochs, devices, ...)")
    Path config;

    @Option(
            names = "--devices",
            paramLabel = "D",
            description = "cpu, cpu:N, all, or GPU indices such as 0,1 (a cluster run then continues on this machine)")
    DeviceSelection devices;

    @Option(names = "--cluster", paramLabel = "spark://HOST:7077", description = "continue on this Spark cluster")
    String cluster;

    @Option(
            names = "--from-another-run",
            description = "continue from a checkpoint that another run of the same name and model wrote")
    boolean fromAnotherRun;

    ResumeCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        if (epochs != null && epochs < 1) {
            cli.err().println("traindeck resume: --epochs needs a whole number of at least 1, not " + epochs);
            return ExitCodes.INVALID_INPUT;
        }
        if (config != null) {
            ValidationResult checked = Configs.load(config);
            checked.problems().forEach(p -> cli.err().println((p.isError() ? "error: " : "warning: ") + p));
            if (!checked.isValid()) {
                cli.err().println(config + ": invalid, nothing was resumed");
                return ExitCodes.INVALID_INPUT;
            }
        }
        RunHandle run;
        try {
            run = cli.engine()
                    .resume(Path.of(target), new ResumeOptions(config, epochs, devices, cluster, fromAnotherRun));
        } catch (CheckpointException | RunBusyException e) {
            cli.err().println("error: " + e.getMessage());
            return ExitCodes.INVALID_INPUT;
        } catch (IOException e) {
            cli.err().println("error: cannot resume " + target + ": " + e.getMessage());
            return ExitCodes.RUN_FAILED;
        }
        return new ForegroundRun(cli).execute(run);
    }
}
