package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.RunQueues;
import org.traindeck.engine.api.queue.QueueOutcome;
import org.traindeck.engine.config.DeviceSelection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code traindeck queue run [--output DIR] [--devices D]}: the waiting runs, one after another, in the foreground. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = "Run the queue; a failed run does not stop it; an interrupted run is resumed.")
final class QueueRunCommand implements Callable<Integer> {
    private final CliContext cli;

    @Option(names = "--output", paramLabel = "DIR", description = "the queue's folder (default: runs)")
    String output;

    @Option(names = "--devices", paramLabel = "D", description = "every run on these devices: cpu, cpu:N, all, or 0,1")
    DeviceSelection devices;

    QueueRunCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() throws IOException {
        Path dir = QueueCommand.outputDir(output);
        long waiting = cli.engine().queue().entries(dir).stream()
                .filter(e -> !e.status().isDone())
                .count();
        if (waiting == 0) {
            cli.out()
                    .println("nothing to run in " + RunQueues.file(dir)
                            + " (traindeck queue add CONFIG... to add runs)");
            return ExitCodes.OK;
        }
        QueueOutcome outcome = QueueExecution.run(
                listener -> cli.engine().queue().run(dir, devices, listener),
                true,
                cli.stopLimit(),
                "run the queue again (traindeck queue run" + (output == null ? "" : " --output " + output) + ")",
                cli.out(),
                cli.err());
        cli.out()
                .println("queue: " + outcome.finished() + " finished, " + outcome.failed() + " failed"
                        + (outcome.stopped() ? "; stopped (run it again to continue)" : ""));
        return outcome.failed() > 0 ? ExitCodes.RUN_FAILED : ExitCodes.OK;
    }
}
