package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.traindeck.engine.api.TensorBoardRuns;
import org.traindeck.engine.api.library.ImportedRun;
import org.traindeck.engine.api.library.TagMapping;
import org.traindeck.engine.library.RunComparison;
import org.traindeck.engine.sinks.RunFolder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code traindeck compare RUN RUN... [--map TAG=METRIC]}: runs' metrics side by side, and how their configs differ. */
@Command(
        name = "compare",
        mixinStandardHelpOptions = true,
        description = "Final and best metrics side by side, and the config keys that differ; a RUN may also be"
                + " TensorBoard logs another tool wrote (an events.out.tfevents.* file or a folder of them).")
final class CompareCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(
            paramLabel = "RUN",
            arity = "2..*",
            description = "two or more run folders or TensorBoard logs (a file or folder)")
    List<Path> runs;

    @Option(
            names = "--map",
            paramLabel = "TAG=METRIC",
            description = "read the logs' TAG as TrainDeck's METRIC (repeatable; over the defaults, such as"
                    + " loss=train/loss)")
    List<String> maps = new ArrayList<>();

    CompareCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        PrintStream out = cli.out();
        PrintStream err = cli.err();
        TagMapping mapping;
        try {
            mapping = TagMapping.parse(String.join(",", maps));
        } catch (IllegalArgumentException e) {
            err.println("error: --map: " + e.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        List<Path> dirs = new ArrayList<>();
        List<ImportedRun> imported = new ArrayList<>();
        for (Path run : runs) {
            if (TensorBoardRuns.isLog(run)) {
                try {
                    imported.add(TensorBoardRuns.open(run));
                } catch (IOException e) {
                    err.println("error: " + e.getMessage());
                    return ExitCodes.INVALID_INPUT;
                }
            } else if (!Files.isRegularFile(RunFolder.of(run).config())
                    || !Files.isRegularFile(RunFolder.of(run).metricsJsonl())) {
                err.println("error: " + run + " is not a run folder (it needs config.json and metrics.jsonl) nor"
                        + " TensorBoard logs (events.out.tfevents.* files)");
                return ExitCodes.INVALID_INPUT;
            } else {
                dirs.add(run);
            }
        }
        RunComparison.Result r;
        try {
            r = imported.isEmpty()
                    ? cli.engine().pastRuns().compare(dirs)
                    : TensorBoardRuns.compare(dirs, imported, mapping);
        } catch (IOException e) {
            err.println("error: " + e.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        for (ImportedRun i : imported) {
            out.println(i.name() + ": TensorBoard logs, " + i.files().size() + " file(s), tags "
                    + String.join(", ", i.tags().keySet()) + describeMapping(i, mapping));
            i.notes().forEach(n -> out.println("  note: " + n));
        }
        if (!imported.isEmpty()) {
            out.println();
        }
        printTable(r, dirs.size(), out);
        return ExitCodes.OK;
    }

    /** The metrics side by side, then the config keys that differ between {@code ourRuns} TrainDeck runs. */
    private static void printTable(RunComparison.Result r, int ourRuns, PrintStream out) {
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-34s", "METRIC (final / best)"));
        r.runs().forEach(n -> header.append(String.format(Locale.ROOT, " %24s", n)));
        out.println(header);
        r.metrics().forEach((name, values) -> {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-34s", name));
            values.forEach(v -> row.append(String.format(
                    Locale.ROOT, " %24s", RunsCommand.number(v.last()) + " / " + RunsCommand.number(v.best()))));
            out.println(row);
        });
        out.println();
        if (ourRuns < 2) {
            out.println("config keys that differ: fewer than two TrainDeck runs, nothing to compare");
        } else if (r.differences().isEmpty()) {
            out.println("the configs do not differ");
        } else {
            out.println("config keys that differ:");
            r.differences().forEach((key, values) -> {
                StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-34s", key));
                values.forEach(v -> row.append(String.format(Locale.ROOT, " %24s", v)));
                out.println(row);
            });
        }
    }

    private static String describeMapping(ImportedRun run, TagMapping mapping) {
        String read = run.metrics(mapping).entrySet().stream()
                .filter(e -> !e.getKey().equals(e.getValue()))
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", "));
        return read.isEmpty() ? " (none read as a TrainDeck metric: use --map TAG=METRIC)" : "; read as " + read;
    }
}
