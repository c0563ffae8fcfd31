package org.traindeck.engine.cli;

import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.queue.QueueEntry;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.sweep.SweepLaunch;
import org.traindeck.engine.sweep.SweepResults;
import org.traindeck.engine.sweep.SweepSpec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code traindeck sweep SWEEP.json [--devices D]}: every trial checked before the first one starts, then run through
 * the sweep's own queue ({@code sweep-<name>.json} in the output folder), so that running the same file again skips
 * finished trials and resumes interrupted ones; at the end, the results table, best first.
 */
final class SweepCommand {

    private SweepCommand() {
    }

    static int run(Path file, DeviceSelection devices, PrintStream out, PrintStream err, DeviceDiscovery discovery,
                   FaultPlan faults) throws IOException {
        SweepLaunch sweep = SweepLaunch.prepare(file, m -> err.println("warning: " + m));
        SweepSpec spec = sweep.spec();
        out.println("sweep " + spec.name() + ": " + sweep.trials().size() + " trial(s), queue " + sweep.queueFile());
        if (spec.concurrent() > 1) {
            List<DeviceSelection> shares = sweep.shares(devices, discovery);
            out.println("trials at once: " + shares.size() + ", on " + String.join(" | ", shares.stream().map(DeviceSelection::describe).toList()));
        }
        QueueRunner.Outcome outcome = QueueExecution.run(sweep.runner(devices, discovery, faults), out, err, sweep.hparams());
        List<SweepResults.Row> rows = SweepResults.rows(spec, sweep.trials(), RunQueue.open(sweep.queueFile()).entries());
        out.println();
        out.print(SweepResults.table(spec, rows));
        SweepResults.notes(rows, RunQueue.open(sweep.queueFile()).entries()).forEach(out::println);
        if (outcome.stopped()) {
            out.println("stopped: run `traindeck sweep " + file + "` again to continue");
        }
        boolean allDone = rows.stream().allMatch(r -> r.status() == QueueEntry.Status.FINISHED);
        return allDone ? Main.OK : Main.RUN_FAILED;
    }
}
