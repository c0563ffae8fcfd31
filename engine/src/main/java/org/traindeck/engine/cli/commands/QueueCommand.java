package org.traindeck.engine.cli.commands;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code traindeck queue}: the group of {@code queue add}, {@code run}, {@code list}, {@code remove} and {@code move}
 * (their classes are its subcommands in {@link CommandRegistry}). The queue is {@code queue.json} in the output folder.
 */
@Command(
        name = "queue",
        mixinStandardHelpOptions = true,
        description = "Queue runs and run them one after another (queue.json in the output folder).",
        subcommandsRepeatable = false)
final class QueueCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "queue needs add, run, list, remove or move");
    }

    /** The queue's folder: {@code --output}, else runs. */
    static Path outputDir(String output) {
        return Path.of(output == null ? "runs" : output);
    }
}
