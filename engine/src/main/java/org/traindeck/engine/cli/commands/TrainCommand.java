package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code traindeck train CONFIG [--devices D] [--cluster ADDRESS] [--executors N]}: the config checked, the command
 * line's overrides applied on its record and checked there, then the run trained in the foreground.
 */
@Command(
        name = "train",
        mixinStandardHelpOptions = true,
        description = "Train as the config says; metrics go to <outputDir>/<name>/.")
final class TrainCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(paramLabel = "CONFIG", description = "the run config (JSON)")
    String config;

    @Option(
            names = "--devices",
            paramLabel = "D",
            description = "instead of the config's: cpu, cpu:N (N CPU workers), all, or GPU indices such as 0,1")
    DeviceSelection devices;

    @Option(
            names = "--cluster",
            paramLabel = "spark://HOST:7077",
            description = "train on this Spark cluster's executors (see traindeck cluster master)")
    String cluster;

    @Option(
            names = "--executors",
            paramLabel = "N",
            description = "with --cluster: how many executors (default: the config's, else 2)")
    Integer executors;

    TrainCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        ValidationResult parsed = Configs.load(Path.of(config));
        RunConfig run = cli.report(parsed);
        if (run == null) {
            cli.err().println(config + ": invalid, nothing was run");
            return ExitCodes.INVALID_INPUT;
        }
        if (cluster != null || executors != null) {
            run = onCluster(run, parsed);
        }
        if (run != null && devices != null) {
            run = onDevices(run, parsed);
        }
        return run == null ? ExitCodes.INVALID_INPUT : prepareAndTrain(run, parsed);
    }

    /** The config with --cluster and --executors, or null (said why) when they do not make a valid config. */
    private RunConfig onCluster(RunConfig run, ValidationResult parsed) {
        String address = cluster != null ? cluster : run.parallel().cluster();
        if (address.isEmpty()) {
            cli.err()
                    .println("error: --executors needs a cluster: --cluster spark://HOST:7077, or parallel.cluster in"
                            + " the config");
            return null;
        }
        if (!address.matches("[a-z][a-z0-9+.-]*://[^\\s/]+:\\d{1,5}")) {
            cli.err()
                    .println("error: parallel.cluster: \"" + address
                            + "\" is not a cluster address such as spark://HOST:7077 (with --cluster " + address + ")");
            return null;
        }
        RunConfig changed = run.withParallel(run.parallel()
                .withCluster(
                        address, executors != null ? executors : run.parallel().executors()));
        ValidationResult again = Configs.revalidate(changed, parsed.locations());
        if (!again.isValid()) {
            again.errors().forEach(p -> cli.err().println("error: " + p + " (with --cluster " + address + ")"));
            return null;
        }
        return changed;
    }

    /** The config with --devices, or null (said why) when they do not make a valid config. */
    private RunConfig onDevices(RunConfig run, ValidationResult parsed) {
        RunConfig changed = run.withDevices(devices);
        ValidationResult again = Configs.revalidate(changed, parsed.locations());
        if (!again.isValid()) {
            again.errors()
                    .forEach(p -> cli.err().println("error: " + p + " (with --devices " + devices.describe() + ")"));
            return null;
        }
        again.warnings().forEach(p -> cli.err().println("warning: " + p));
        return changed;
    }

    private int prepareAndTrain(RunConfig run, ValidationResult parsed) {
        RunHandle handle;
        try {
            // the model is checked against the data and the devices' memory there, once, after ND4J is set up as for
            // the run; the overrides change devices and the cluster only: the file's lines still locate everything else
            handle = cli.engine().openRun(new ValidationResult(run, List.of(), parsed.locations()));
        } catch (InvalidConfigException e) {
            e.problems().forEach(p -> cli.err().println("error: " + p));
            cli.err().println(config + ": nothing was run");
            return ExitCodes.INVALID_INPUT;
        } catch (IOException e) {
            cli.err().println("error: cannot create the run folder under " + run.outputPath() + ": " + e.getMessage());
            return ExitCodes.RUN_FAILED;
        }
        return new ForegroundRun(cli).execute(handle);
    }
}
