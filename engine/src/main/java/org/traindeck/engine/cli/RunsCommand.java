package org.traindeck.engine.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.TensorBoardRuns;
import org.traindeck.engine.api.library.ImportedRun;
import org.traindeck.engine.api.library.TagMapping;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.library.RunComparison;
import org.traindeck.engine.sinks.RunFolder;

/** {@code traindeck runs [OUTPUT_DIR] [--json]} and {@code traindeck compare RUN RUN... [--map TAG=METRIC]}. */
final class RunsCommand {

    private static final DateTimeFormatter WHEN =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

    private RunsCommand() {}

    static int runs(Engine engine, Path dir, boolean json, PrintStream out, PrintStream err) {
        if (!Files.isDirectory(dir)) {
            err.println("error: no such output folder: " + dir);
            return Main.INVALID_INPUT;
        }
        List<RunSummary> runs;
        try {
            runs = engine.pastRuns().list(dir);
        } catch (IOException e) {
            err.println("error: " + e.getMessage());
            return Main.INVALID_INPUT;
        }
        if (json) {
            ObjectMapper mapper = new ObjectMapper();
            ArrayNode list = mapper.createArrayNode();
            for (RunSummary r : runs) {
                ObjectNode o = list.addObject();
                o.put("name", r.name());
                o.put("folder", r.folder().toString());
                o.put("status", r.status());
                o.put("steps", r.steps());
                o.put("monitor", r.monitor());
                putNumber(o, "best", r.best());
                putNumber(o, "last", r.last());
                o.put("durationSeconds", r.elapsedSeconds());
                o.put("startedMillis", r.startedMillis());
                putNumber(o, "energyWh", r.energyWh());
                if (r.energyNote() == null) {
                    o.putNull("energyNote");
                } else {
                    o.put("energyNote", r.energyNote());
                }
            }
            try {
                out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(list));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return Main.OK;
        }
        if (runs.isEmpty()) {
            out.println("no runs in " + dir);
            return Main.OK;
        }
        out.println(String.format(
                Locale.ROOT,
                "%-28s %-12s %8s  %-16s %10s %10s %9s %10s  %s",
                "RUN",
                "STATUS",
                "STEPS",
                "METRIC",
                "BEST",
                "LAST",
                "DURATION",
                "ENERGY",
                "STARTED"));
        for (RunSummary r : runs) {
            out.println(String.format(
                    Locale.ROOT,
                    "%-28s %-12s %8d  %-16s %10s %10s %9s %10s  %s",
                    r.folder().getFileName(),
                    r.status(),
                    r.steps(),
                    r.monitor(),
                    number(r.best()),
                    number(r.last()),
                    duration(r.elapsedSeconds()),
                    Double.isNaN(r.energyWh()) ? "n/a" : EnergyReport.format(r.energyWh()),
                    r.startedMillis() == 0 ? "-" : WHEN.format(Instant.ofEpochMilli(r.startedMillis()))));
        }
        energyNotes(runs, out);
        return Main.OK;
    }

    /** Why a run's ENERGY reads n/a, once per reason, naming the runs: "energy n/a: no RAPL counters ... (a, b)". */
    private static void energyNotes(List<RunSummary> runs, PrintStream out) {
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        for (RunSummary r : runs) {
            if (Double.isNaN(r.energyWh())) {
                String reason = r.energyNote() == null ? EnergyReport.NOT_RECORDED : r.energyNote();
                byReason.computeIfAbsent(reason, k -> new ArrayList<>())
                        .add(r.folder().getFileName().toString());
            }
        }
        byReason.forEach(
                (reason, names) -> out.println("energy n/a: " + reason + " (" + String.join(", ", names) + ")"));
    }

    static int compare(Engine engine, List<Path> runs, List<String> maps, PrintStream out, PrintStream err) {
        TagMapping mapping;
        try {
            mapping = TagMapping.parse(String.join(",", maps));
        } catch (IllegalArgumentException e) {
            err.println("error: --map: " + e.getMessage());
            return Main.INVALID_INPUT;
        }
        List<Path> dirs = new ArrayList<>();
        List<ImportedRun> imported = new ArrayList<>();
        for (Path run : runs) {
            if (TensorBoardRuns.isLog(run)) {
                try {
                    imported.add(TensorBoardRuns.open(run));
                } catch (IOException e) {
                    err.println("error: " + e.getMessage());
                    return Main.INVALID_INPUT;
                }
            } else if (!Files.isRegularFile(RunFolder.of(run).config())
                    || !Files.isRegularFile(RunFolder.of(run).metricsJsonl())) {
                err.println("error: " + run + " is not a run folder (it needs config.json and metrics.jsonl) nor"
                        + " TensorBoard logs (events.out.tfevents.* files)");
                return Main.INVALID_INPUT;
            } else {
                dirs.add(run);
            }
        }
        RunComparison.Result r;
        try {
            r = imported.isEmpty() ? engine.pastRuns().compare(dirs) : TensorBoardRuns.compare(dirs, imported, mapping);
        } catch (IOException e) {
            err.println("error: " + e.getMessage());
            return Main.INVALID_INPUT;
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
        return Main.OK;
    }

    /** The metrics side by side, then the config keys that differ between {@code ourRuns} TrainDeck runs. */
    private static void printTable(RunComparison.Result r, int ourRuns, PrintStream out) {
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-34s", "METRIC (final / best)"));
        r.runs().forEach(n -> header.append(String.format(Locale.ROOT, " %24s", n)));
        out.println(header);
        r.metrics().forEach((name, values) -> {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-34s", name));
            values.forEach(
                    v -> row.append(String.format(Locale.ROOT, " %24s", number(v.last()) + " / " + number(v.best()))));
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

    private static void putNumber(ObjectNode o, String key, double v) {
        if (Double.isNaN(v)) {
            o.putNull(key);
        } else {
            o.put(key, v);
        }
    }

    private static String number(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4g", v);
    }

    private static String duration(double seconds) {
        long s = Math.round(seconds);
        return s >= 3600
                ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
