package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.RunQueues;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code traindeck queue add CONFIG... [--output DIR]}: every config is checked first, as train checks it (the model
 * against the data, the fit); one with errors adds nothing at all.
 */
@Command(
        name = "add",
        mixinStandardHelpOptions = true,
        description = "Queue copies of configs as they are now (every one checked first).")
final class QueueAddCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(paramLabel = "CONFIG", arity = "1..*")
    List<String> configs;

    @Option(
            names = "--output",
            paramLabel = "DIR",
            description = "the queue's folder (default: each config's outputDir)")
    String output;

    QueueAddCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() throws IOException {
        List<ValidationResult> checked = new ArrayList<>();
        boolean bad = false;
        for (String f : configs) {
            ValidationResult v = check(f);
            if (v == null) {
                bad = true;
            } else {
                checked.add(v);
            }
        }
        if (bad) {
            cli.err().println("nothing was added to the queue");
            return ExitCodes.INVALID_INPUT;
        }
        for (int i = 0; i < checked.size(); i++) {
            RunConfig c = checked.get(i).config();
            QueueEntry e = cli.engine().queue().add(checked.get(i), Path.of(configs.get(i)));
            cli.out()
                    .println("queued #" + e.id() + " " + e.label() + " in "
                            + RunQueues.file(output == null ? c.outputPath() : QueueCommand.outputDir(output)));
        }
        return ExitCodes.OK;
    }

    /** The config to queue (in --output's folder when given), or null when it has errors or is refused (said why). */
    private ValidationResult check(String file) {
        ValidationResult v = Configs.load(Path.of(file));
        v.problems().forEach(p -> cli.err().println(file + ": " + (p.isError() ? "error: " : "warning: ") + p));
        List<ConfigProblem> refused = v.isValid() ? cli.engine().refusals(v) : List.of();
        refused.forEach(p -> cli.err().println(file + ": error: " + p));
        if (!v.isValid() || !refused.isEmpty()) {
            return null;
        }
        return output == null
                ? v
                : new ValidationResult(
                        v.config()
                                .withOutputDir(Path.of(output).toAbsolutePath().toString()),
                        v.problems(),
                        v.locations());
    }
}
