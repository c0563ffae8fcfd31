package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.runs.ClassFigures;
import org.traindeck.engine.api.runs.Evaluation;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.Task;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code traindeck evaluate RUN_OR_CHECKPOINT [--data CONFIG_OR_SOURCE] [--ema]}: the figures as a table, and where they went. */
@Command(
        name = "evaluate",
        mixinStandardHelpOptions = true,
        description = "A trained model's figures on test data (the config's "
                + "data.test, else its validation data): printed, and written to the run folder's evaluation.json.")
final class EvaluateCommand implements Callable<Integer> {

    /** Wider matrices stay readable in evaluation.json only. */
    static final int MAX_PRINTED_CLASSES = 20;

    private final CliContext cli;

    @Parameters(
            paramLabel = "RUN_OR_CHECKPOINT",
            description = "a run folder (its best checkpoint, else its newest) or a .tdckpt file")
    Path target;

    @Option(
            names = "--data",
            paramLabel = "CONFIG_OR_SOURCE",
            description =
                    "a run config whose data.test to use, or one source as a .json file or JSON text, like data.train")
    String data;

    @Option(names = "--ema", description = "evaluate the stage's weight average (ema.bin) instead of its last weights")
    boolean ema;

    EvaluateCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        PrintStream err = cli.err();
        Evaluation e;
        try {
            e = cli.engine().trainedModels().evaluate(target, data, ema, done -> {});
        } catch (CheckpointException ex) {
            err.println("error: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        } catch (InvalidConfigException ex) {
            ex.problems().forEach(p -> err.println("error: " + p));
            err.println(target + ": nothing was evaluated");
            return ExitCodes.INVALID_INPUT;
        } catch (IOException ex) {
            err.println("error: the evaluation could not be written: " + ex.getMessage());
            return ExitCodes.RUN_FAILED;
        }
        print(e, cli.out());
        return ExitCodes.OK;
    }

    static void print(Evaluation e, PrintStream out) {
        out.println(String.format(
                Locale.ROOT,
                "%s of run \"%s\" (%s) on %s: %d samples in %.1f s",
                e.checkpointFile().getFileName(),
                e.runName(),
                e.ema() ? "weight average" : "weights",
                e.data(),
                e.samples(),
                e.seconds()));
        for (Map.Entry<String, Double> f : e.figures().entrySet()) {
            out.println(String.format(Locale.ROOT, "  %-20s %10.4f", f.getKey(), f.getValue()));
        }
        if (e.confusionMatrix() != null) {
            printMatrix(e, out);
        }
        if (!e.perClass().isEmpty()) {
            printClasses(e.perClass(), e.task() == Task.SEGMENTATION, out);
        }
        out.println("written to " + e.file());
    }

    private static void printMatrix(Evaluation e, PrintStream out) {
        List<List<Long>> m = e.confusionMatrix();
        if (m.size() > MAX_PRINTED_CLASSES) {
            out.println(
                    "confusion matrix: " + m.size() + " classes, in " + e.file().getFileName());
            return;
        }
        int width = 5;
        for (List<Long> row : m) {
            for (long v : row) {
                width = Math.max(width, String.valueOf(v).length() + 1);
            }
        }
        int label = Math.min(
                12, e.classNames().stream().mapToInt(String::length).max().orElse(1));
        out.println("confusion matrix (rows: true class, columns: predicted"
                + (e.task() == Task.SEGMENTATION ? "; pixels" : "") + ")");
        StringBuilder head = new StringBuilder("  " + " ".repeat(label));
        for (int j = 0; j < m.size(); j++) {
            head.append(String.format(
                    Locale.ROOT, "%" + width + "s", cut(e.classNames().get(j), width - 1)));
        }
        out.println(head);
        for (int i = 0; i < m.size(); i++) {
            StringBuilder line = new StringBuilder(String.format(
                    Locale.ROOT, "  %-" + label + "s", cut(e.classNames().get(i), label)));
            for (long v : m.get(i)) {
                line.append(String.format(Locale.ROOT, "%" + width + "d", v));
            }
            out.println(line);
        }
    }

    private static void printClasses(List<ClassFigures> classes, boolean iou, PrintStream out) {
        out.println(String.format(
                Locale.ROOT,
                "  %-12s %10s %10s %10s %8s%s",
                "CLASS",
                "SUPPORT",
                "PRECISION",
                "RECALL",
                "F1",
                iou ? String.format(Locale.ROOT, " %8s", "IOU") : ""));
        for (ClassFigures c : classes) {
            out.println(String.format(
                    Locale.ROOT,
                    "  %-12s %10d %10s %10s %8s%s",
                    cut(c.name(), 12),
                    c.support(),
                    figure(c.precision()),
                    figure(c.recall()),
                    figure(c.f1()),
                    iou ? String.format(Locale.ROOT, " %8s", figure(c.iou())) : ""));
        }
    }

    private static String figure(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4f", v);
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, Math.max(1, max - 1)) + "…";
    }
}
