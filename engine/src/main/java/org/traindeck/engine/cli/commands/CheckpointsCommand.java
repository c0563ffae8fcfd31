package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.traindeck.engine.checkpoint.Checkpoint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code traindeck checkpoints RUN_DIR}: every checkpoint of a run, and why an unusable one cannot be resumed. */
@Command(
        name = "checkpoints",
        mixinStandardHelpOptions = true,
        description = "List a run's checkpoints: stage, epoch, step, metric, valid or not.")
final class CheckpointsCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(paramLabel = "RUN_DIR")
    Path runDir;

    CheckpointsCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        PrintStream out = cli.out();
        PrintStream err = cli.err();
        if (!Files.isDirectory(runDir)) {
            err.println("error: no such run folder: " + runDir);
            return ExitCodes.INVALID_INPUT;
        }
        List<Checkpoint.Listed> all;
        try {
            all = cli.engine().pastRuns().checkpoints(runDir);
        } catch (IOException e) {
            err.println("error: cannot list " + runDir + ": " + e.getMessage());
            return ExitCodes.RUN_FAILED;
        }
        if (all.isEmpty()) {
            out.println("no checkpoints in " + runDir);
            return ExitCodes.OK;
        }
        out.println(String.format(
                Locale.ROOT,
                "%-28s %-12s %6s %8s %10s  %-9s %s",
                "FILE",
                "STAGE",
                "EPOCH",
                "STEP",
                "BEST",
                "REASON",
                "STATUS"));
        for (Checkpoint.Listed l : all) {
            if (!l.isValid()) {
                out.println(String.format(Locale.ROOT, "%-28s %s", l.file().getFileName(), "INVALID: " + l.problem()));
                continue;
            }
            Checkpoint c = l.checkpoint();
            String foreign = l.foreign();
            Double best = c.best().get(c.stageName());
            out.println(String.format(
                    Locale.ROOT,
                    "%-28s %-12s %6s %8d %10s  %-9s %s",
                    l.file().getFileName(),
                    c.stageName(),
                    c.batchInEpoch() > 0 ? c.epoch() + "+" : String.valueOf(c.epoch()),
                    c.globalStep(),
                    best == null ? "-" : String.format(Locale.ROOT, "%.4f", best),
                    c.reason(),
                    foreign != null
                            ? "NOT RESUMED: " + foreign
                            : c.runId().isEmpty() ? "valid (no run id: written before ids)" : "valid"));
        }
        return ExitCodes.OK;
    }
}
