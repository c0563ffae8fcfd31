package org.traindeck.engine.cli;

import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.ConfigWriter;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.queue.QueueEntry;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.queue.RunQueue;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code traindeck queue add CONFIG... [--output DIR]}, {@code queue run [--output DIR] [--devices D]} and
 * {@code queue list [--output DIR]}. The queue is {@code queue.json} in the output folder.
 */
final class QueueCommand {

    private QueueCommand() {
    }

    private static Path queueFile(String output) {
        return Path.of(output == null ? "runs" : output).resolve(RunQueue.DEFAULT_FILE);
    }

    /** Every config is checked first; one with errors adds nothing at all. */
    static int add(List<String> files, String output, PrintStream out, PrintStream err) throws IOException {
        List<RunConfig> configs = new ArrayList<>();
        boolean bad = false;
        for (String f : files) {
            ValidationResult v = ConfigParser.load(Path.of(f));
            v.problems().forEach(p -> err.println(f + ": " + (p.isError() ? "error: " : "warning: ") + p));
            if (!v.isValid()) {
                bad = true;
            } else {
                RunConfig c = v.config();
                configs.add(output == null ? c : c.withOutputDir(Path.of(output).toAbsolutePath().toString()));
            }
        }
        if (bad) {
            err.println("nothing was added to the queue");
            return Main.INVALID_INPUT;
        }
        for (int i = 0; i < configs.size(); i++) {
            RunConfig c = configs.get(i);
            Path file = output == null ? c.outputPath().resolve(RunQueue.DEFAULT_FILE) : queueFile(output);
            QueueEntry e = RunQueue.add(file, c.name(), Path.of(files.get(i)).toAbsolutePath().toString(),
                    ConfigWriter.toJsonWithAbsolutePaths(c));
            out.println("queued #" + e.id() + " " + e.label() + " in " + file);
        }
        return Main.OK;
    }

    static int run(String output, DeviceSelection devices, PrintStream out, PrintStream err, DeviceDiscovery discovery,
                   FaultPlan faults) throws IOException {
        Path file = queueFile(output);
        long waiting = RunQueue.open(file).entries().stream().filter(e -> !e.status().isDone()).count();
        if (waiting == 0) {
            out.println("nothing to run in " + file + " (traindeck queue add CONFIG... to add runs)");
            return Main.OK;
        }
        QueueRunner.Outcome outcome = QueueExecution.run(new QueueRunner(file, discovery, devices, faults), out, err);
        out.println("queue: " + outcome.finished() + " finished, " + outcome.failed() + " failed"
                + (outcome.stopped() ? "; stopped (run it again to continue)" : ""));
        return outcome.failed() > 0 ? Main.RUN_FAILED : Main.OK;
    }

    static int list(String output, PrintStream out) throws IOException {
        Path file = queueFile(output);
        List<QueueEntry> entries = RunQueue.open(file).entries();
        if (entries.isEmpty()) {
            out.println("the queue in " + file + " is empty");
        }
        for (QueueEntry e : entries) {
            out.println(String.format(Locale.ROOT, "#%-3d %-9s %-24s %s%s", e.id(), e.status().name().toLowerCase(Locale.ROOT),
                    e.label(), e.runDir() == null ? "" : e.runDir(), e.message() == null ? "" : "  " + e.message()));
        }
        return Main.OK;
    }
}
