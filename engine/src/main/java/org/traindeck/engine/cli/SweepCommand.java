package org.traindeck.engine.cli;

import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.ConfigWriter;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.queue.DeviceShares;
import org.traindeck.engine.queue.QueueEntry;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.sweep.SweepHParams;
import org.traindeck.engine.sweep.SweepParser;
import org.traindeck.engine.sweep.SweepResults;
import org.traindeck.engine.sweep.SweepSpec;
import org.traindeck.engine.sweep.SweepTrials;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

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
        SweepSpec spec = SweepParser.load(file);
        List<SweepTrials.Trial> trials = SweepTrials.expand(spec);
        Path queue = trials.get(0).config().outputPath().resolve("sweep-" + spec.name() + ".json");
        if (!enqueue(trials, queue, err)) {
            return Main.INVALID_INPUT;
        }
        RunQueue.describeSweep(queue, SweepResults.describe(spec));
        out.println("sweep " + spec.name() + ": " + trials.size() + " trial(s), queue " + queue);
        SweepHParams hparams = new SweepHParams(spec, trials, m -> err.println("warning: " + m));
        hparams.writeExperiment(queue.getParent());
        QueueRunner runner;
        if (spec.concurrent() > 1) {
            DeviceSelection all = devices != null ? devices : trials.get(0).config().devices();
            List<DeviceSelection> shares = DeviceShares.split(all, spec.concurrent(), discovery);
            out.println("trials at once: " + shares.size() + ", on " + String.join(" | ", shares.stream().map(DeviceSelection::describe).toList()));
            runner = new QueueRunner(queue, discovery, shares, faults);
        } else {
            runner = new QueueRunner(queue, discovery, devices, faults);
        }
        QueueRunner.Outcome outcome = QueueExecution.run(runner, out, err, hparams);
        List<SweepResults.Row> rows = SweepResults.rows(spec, trials, RunQueue.open(queue).entries());
        out.println();
        out.print(SweepResults.table(spec, rows));
        if (outcome.stopped()) {
            out.println("stopped: run `traindeck sweep " + file + "` again to continue");
        }
        boolean allDone = rows.stream().allMatch(r -> r.status() == QueueEntry.Status.FINISHED);
        return allDone ? Main.OK : Main.RUN_FAILED;
    }

    /**
     * Adds the trials the queue does not have yet. A trial already queued with other values means the sweep file
     * changed: its finished runs would no longer match it, so nothing is added and the user is told what to do.
     */
    private static boolean enqueue(List<SweepTrials.Trial> trials, Path queue, PrintStream err) throws IOException {
        Map<String, QueueEntry> queued = RunQueue.open(queue).entries().stream()
                .collect(Collectors.toMap(QueueEntry::label, Function.identity(), (a, b) -> b));
        List<SweepTrials.Trial> fresh = new ArrayList<>();
        for (SweepTrials.Trial t : trials) {
            QueueEntry e = queued.get(t.label());
            String config = ConfigWriter.toJsonWithAbsolutePaths(t.config());
            if (e == null) {
                fresh.add(t);
            } else if (!sameConfig(e.config(), config)) {
                err.println("error: trial " + t.number() + " (" + t.describe() + ") is not the trial queued as " + e.label()
                        + " in " + queue + ": the sweep file or its base config changed since. Give the sweep another name, "
                        + "or delete " + queue + " to start it over (its runs stay in their folders)");
                return false;
            }
        }
        for (SweepTrials.Trial t : fresh) {
            RunQueue.add(queue, t.label(), null, ConfigWriter.toJsonWithAbsolutePaths(t.config()));
        }
        return true;
    }

    private static boolean sameConfig(String a, String b) {
        return ConfigParser.parse(a, Path.of("")).config().equals(ConfigParser.parse(b, Path.of("")).config());
    }
}
