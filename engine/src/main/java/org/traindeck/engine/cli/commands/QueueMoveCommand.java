package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code traindeck queue move ID --to N [--output DIR]}: a waiting entry to another place; then the queue is listed. */
@Command(
        name = "move",
        mixinStandardHelpOptions = true,
        description = "Move a waiting entry to another place in the queue (waiting entries run in list order).")
final class QueueMoveCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(index = "0", paramLabel = "ID", description = "the entry's number, as queue list shows it")
    int id;

    @Option(names = "--to", paramLabel = "N", required = true, description = "its new place, 1 = first")
    int position;

    @Option(names = "--output", paramLabel = "DIR", description = "the queue's folder (default: runs)")
    String output;

    QueueMoveCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() throws IOException {
        Path dir = QueueCommand.outputDir(output);
        cli.engine().queue().move(dir, id, position - 1);
        QueueListCommand.print(cli.engine(), dir, cli.out());
        return ExitCodes.OK;
    }
}
