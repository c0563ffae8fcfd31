package org.traindeck.engine.cli.commands;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.ConfigCheck;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code traindeck validate CONFIG [--summary] [--expand]}: every problem of a config, located, and whether it fits. */
@Command(
        name = "validate",
        mixinStandardHelpOptions = true,
        description = "Check a run config and list every problem (path, line, column).")
final class ValidateCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(paramLabel = "CONFIG", description = "the run config (JSON)")
    String config;

    @Option(
            names = "--summary",
            description = "print the model's table: each node, its type, inputs, output shape and parameters")
    boolean summary;

    @Option(
            names = "--expand",
            description = "print the layer graph a vit or gpt shorthand stands for, to copy into a config")
    boolean expand;

    ValidateCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        ConfigCheck check = cli.engine().check(Configs.load(Path.of(config)));
        RunConfig checked = cli.report(check.checked());
        if (checked == null) {
            cli.err().println(config + ": invalid");
            return ExitCodes.INVALID_INPUT;
        }
        if (expand) {
            String graph = Configs.expandedModel(checked.model());
            cli.out()
                    .println(
                            graph == null
                                    ? "the " + checked.model().type() + " shorthand has no layer graph to expand"
                                    : graph);
        }
        if (summary) {
            printSummary(check);
        }
        if (cli.report(new ValidationResult(checked, check.fits().problems())) == null) {
            cli.err().println(config + ": does not fit the devices' memory");
            return ExitCodes.INVALID_INPUT;
        }
        cli.out()
                .println(config + ": valid (" + checked.stages().size() + " stage(s), model "
                        + checked.model().type()
                        + (check.summary() == null
                                ? ""
                                : String.format(
                                        Locale.ROOT,
                                        ", %,d parameters",
                                        check.summary().parameters()))
                        + ")");
        return ExitCodes.OK;
    }

    /** The model's table (and each stage's own model's), then how each stage fits the devices' memory. */
    private void printSummary(ConfigCheck check) {
        if (check.summary() != null) {
            cli.out().print(check.summary().toText());
            check.stageSummaries().forEach((stage, table) -> {
                cli.out().println("stage " + stage + "'s own model:");
                cli.out().print(table.toText());
            });
        }
        check.fits().lines().forEach(cli.out()::println);
    }
}
