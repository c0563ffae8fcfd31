package org.traindeck.engine.cli.commands;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.profile.StepProfile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code traindeck profile CONFIG [--steps N] [--ops]}: where a step of the config's model goes, no run folder made. */
@Command(
        name = "profile",
        mixinStandardHelpOptions = true,
        description =
                "Train a few steps of the config's model on its data (first stage, one device, no run folder) and print "
                        + "where a step goes: each node's forward and backward, the optimizer update, the data and the rest.")
final class ProfileCommand implements Callable<Integer> {

    /** The most steps a profile takes: a profile is minutes at most, not a run. */
    static final int MAX_PROFILE_STEPS = 10_000;

    private final CliContext cli;

    @Parameters(paramLabel = "CONFIG", description = "the run config (JSON)")
    String config;

    @Option(
            names = "--steps",
            paramLabel = "N",
            defaultValue = "20",
            description =
                    "timed steps, after " + Engine.PROFILE_WARMUP_STEPS + " warm-up steps (default: ${DEFAULT-VALUE})")
    int steps;

    @Option(
            names = "--ops",
            description =
                    "also ND4J's time per native op over as many more steps (use OMP_NUM_THREADS=1 for exact op times)")
    boolean ops;

    ProfileCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        if (steps < 1 || steps > MAX_PROFILE_STEPS) {
            cli.err().println("error: --steps: needs a whole number from 1 to " + MAX_PROFILE_STEPS + ", not " + steps);
            return ExitCodes.INVALID_INPUT;
        }
        ValidationResult parsed = Configs.load(Path.of(config));
        if (cli.report(parsed) == null) {
            cli.err().println(config + ": invalid, nothing was profiled");
            return ExitCodes.INVALID_INPUT;
        }
        StepProfile profile;
        try {
            profile = cli.engine().profile(parsed, steps, ops);
        } catch (InvalidConfigException e) {
            e.problems().forEach(p -> cli.err().println("error: " + p));
            cli.err().println(config + ": nothing was profiled");
            return ExitCodes.INVALID_INPUT;
        } catch (RuntimeException | OutOfMemoryError e) {
            cli.err().println("error: profiling " + config + " failed: " + e);
            return ExitCodes.RUN_FAILED;
        }
        cli.out().print(profile.toText());
        return ExitCodes.OK;
    }
}
