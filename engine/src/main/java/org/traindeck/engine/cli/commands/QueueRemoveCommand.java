package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.RunQueues;
import org.traindeck.engine.api.queue.QueueEntry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code traindeck queue remove ID [--output DIR]}: an entry out of the queue; its run folder, if any, stays. */
@Command(
        name = "remove",
        mixinStandardHelpOptions = true,
        description = "Take an entry out of the queue (not the one running); its run folder, if any, stays.")
final class QueueRemoveCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(paramLabel = "ID", description = "the entry's number, as queue list shows it")
    int id;

    @Option(names = "--output", paramLabel = "DIR", description = "the queue's folder (default: runs)")
    String output;

    QueueRemoveCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() throws IOException {
        Path dir = QueueCommand.outputDir(output);
        QueueEntry e = cli.engine().queue().remove(dir, id);
        cli.out()
                .println("removed #" + e.id() + " " + e.label() + " from " + RunQueues.file(dir)
                        + (e.runDir() == null ? "" : " (its run folder " + e.runDir() + " stays)"));
        return ExitCodes.OK;
    }
}
