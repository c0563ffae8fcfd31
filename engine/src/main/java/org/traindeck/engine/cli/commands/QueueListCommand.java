package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunQueues;
import org.traindeck.engine.api.queue.QueueEntry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code traindeck queue list [--output DIR]}: the queued runs, a line each, in the order the waiting ones run. */
@Command(name = "list", mixinStandardHelpOptions = true, description = "The queued runs and how each stands.")
final class QueueListCommand implements Callable<Integer> {
    private final CliContext cli;

    @Option(names = "--output", paramLabel = "DIR", description = "the queue's folder (default: runs)")
    String output;

    QueueListCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() throws IOException {
        print(cli.engine(), QueueCommand.outputDir(output), cli.out());
        return ExitCodes.OK;
    }

    /** Prints the queue in {@code dir}, as {@code queue move} does after a move. */
    static void print(Engine engine, Path dir, PrintStream out) throws IOException {
        List<QueueEntry> entries = engine.queue().entries(dir);
        if (entries.isEmpty()) {
            out.println("the queue in " + RunQueues.file(dir) + " is empty");
        }
        for (QueueEntry e : entries) {
            out.println(String.format(
                    Locale.ROOT,
                    "#%-3d %-9s %-24s %s%s",
                    e.id(),
                    e.status().name().toLowerCase(Locale.ROOT),
                    e.label(),
                    e.runDir() == null ? "" : e.runDir(),
                    e.message() == null ? "" : "  " + e.message()));
        }
    }
}
