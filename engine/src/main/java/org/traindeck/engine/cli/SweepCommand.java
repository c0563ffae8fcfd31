package org.traindeck.engine.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.PreparedSweep;
import org.traindeck.engine.api.SweepReport;
import org.traindeck.engine.api.queue.QueueOutcome;
import org.traindeck.engine.config.DeviceSelection;

/**
 * {@code traindeck sweep SWEEP.json [--devices D]}: every trial checked before the first one starts, then run through
 * the sweep's own queue ({@code sweep-<name>.json} in the output folder), so that running the same file again skips
 * finished trials and resumes interrupted ones; at the end, the results table, best first.
 */
final class SweepCommand {

    private SweepCommand() {}

    static int run(
            Engine engine, Path file, DeviceSelection devices, Duration stopLimit, PrintStream out, PrintStream err)
            throws IOException {
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
                stopLimit,
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
        return report.allFinished() ? Main.OK : Main.RUN_FAILED;
    }
}
