package org.traindeck.engine.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunQueues;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.queue.QueueOutcome;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;

/**
 * {@code traindeck queue add CONFIG... [--output DIR]}, {@code queue run [--output DIR] [--devices D]} and
 * {@code queue list [--output DIR]}. The queue is {@code queue.json} in the output folder.
 */
final class QueueCommand {

    private QueueCommand() {}

    private static Path outputDir(String output) {
        return Path.of(output == null ? "runs" : output);
    }

    /** Every config is checked first, as train checks it (the model against the data, the fit); one with errors adds nothing at all. */
    static int add(Engine engine, List<String> files, String output, PrintStream out, PrintStream err)
            throws IOException {
        List<ValidationResult> configs = new ArrayList<>();
        boolean bad = false;
        for (String f : files) {
            ValidationResult v = Configs.load(Path.of(f));
            v.problems().forEach(p -> err.println(f + ": " + (p.isError() ? "error: " : "warning: ") + p));
            List<ConfigProblem> refused = v.isValid() ? engine.refusals(v) : List.of();
            refused.forEach(p -> err.println(f + ": error: " + p));
            if (!v.isValid() || !refused.isEmpty()) {
                bad = true;
            } else {
                RunConfig c = v.config();
                configs.add(
                        output == null
                                ? v
                                : new ValidationResult(
                                        c.withOutputDir(
                                                Path.of(output).toAbsolutePath().toString()),
                                        v.problems(),
                                        v.locations()));
            }
        }
        if (bad) {
            err.println("nothing was added to the queue");
            return Main.INVALID_INPUT;
        }
        for (int i = 0; i < configs.size(); i++) {
            RunConfig c = configs.get(i).config();
            QueueEntry e = engine.queue().add(configs.get(i), Path.of(files.get(i)));
            out.println("queued #" + e.id() + " " + e.label() + " in "
                    + RunQueues.file(output == null ? c.outputPath() : outputDir(output)));
        }
        return Main.OK;
    }

    static int run(
            Engine engine, String output, DeviceSelection devices, Duration stopLimit, PrintStream out, PrintStream err)
            throws IOException {
        Path dir = outputDir(output);
        long waiting = engine.queue().entries(dir).stream()
                .filter(e -> !e.status().isDone())
                .count();
        if (waiting == 0) {
            out.println("nothing to run in " + RunQueues.file(dir) + " (traindeck queue add CONFIG... to add runs)");
            return Main.OK;
        }
        QueueOutcome outcome = QueueExecution.run(
                listener -> engine.queue().run(dir, devices, listener),
                true,
                stopLimit,
                "run the queue again (traindeck queue run" + (output == null ? "" : " --output " + output) + ")",
                out,
                err);
        out.println("queue: " + outcome.finished() + " finished, " + outcome.failed() + " failed"
                + (outcome.stopped() ? "; stopped (run it again to continue)" : ""));
        return outcome.failed() > 0 ? Main.RUN_FAILED : Main.OK;
    }

    static int list(Engine engine, String output, PrintStream out) throws IOException {
        Path dir = outputDir(output);
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
        return Main.OK;
    }

    static int remove(Engine engine, int id, String output, PrintStream out) throws IOException {
        QueueEntry e = engine.queue().remove(outputDir(output), id);
        out.println("removed #" + e.id() + " " + e.label() + " from " + RunQueues.file(outputDir(output))
                + (e.runDir() == null ? "" : " (its run folder " + e.runDir() + " stays)"));
        return Main.OK;
    }

    static int move(Engine engine, int id, int position, String output, PrintStream out) throws IOException {
        Path dir = outputDir(output);
        engine.queue().move(dir, id, position - 1);
        return list(engine, output, out);
    }
}
