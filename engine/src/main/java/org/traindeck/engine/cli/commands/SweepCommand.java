package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.PreparedSweep;
import org.traindeck.engine.api.SweepReport;
import org.traindeck.engine.api.queue.QueueOutcome;
import org.traindeck.engine.config.DeviceSelection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code traindeck sweep SWEEP.json [--devices D]}: every trial checked before the first one starts, then run through
 * the sweep's own queue ({@code sweep-<name>.json} in the output folder), so that running the same file again skips
 * finished trials and resumes interrupted ones; at the end, the results table, best first.
 */
@Command(
        name = "sweep",
        mixinStandardHelpOptions = true,
        description = "Run every trial of a sweep file through its queue, then print the results, best first.")
final class SweepCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(paramLabel = "SWEEP")
    Path file;

    @Option(
            names = "--devices",
            paramLabel = "D",
            description = "every trial on these devices: cpu, cpu:N, all, or 0,1")
    DeviceSelection devices;

    SweepCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() throws IOException {
        Engine engine = cli.engine();
        PrintStream out = cli.out();
        PrintStream err = cli.err();
        PreparedSweep sweep = engine.sweeps().prepare(file, devices, m -> err.println("warning: " + m));
        out.println("sweep " + sweep.name() + ": " + sweep.trials() + " trial(s), queue " + sweep.queueFile());
        if (!sweep.shares().isEmpty()) {
            out.println("trials at once: " + sweep.shares().size() + ", on "
                    + String.join(
                            " | ",
                            sweep.shares().stream()
                                    .map(DeviceSelection::describe)
                                    .toList()));
        }
        QueueOutcome outcome = QueueExecution.run(
                listener -> engine.sweeps().run(sweep, listener),
                sweep.shares().size() <= 1,
                cli.stopLimit(),
                "run the sweep again (traindeck sweep " + file + ")",
                out,
                err);
        SweepReport report = engine.sweeps().report(sweep);
        out.println();
        out.print(report.table());
        report.notes().forEach(out::println);
        if (outcome.stopped()) {
            out.println("stopped: run `traindeck sweep " + file + "` again to continue");
        }
        return report.allFinished() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }
}
