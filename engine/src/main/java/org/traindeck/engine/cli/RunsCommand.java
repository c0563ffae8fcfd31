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
import java.util.List;
import java.util.Locale;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.devices.energy.EnergyReport;
import org.traindeck.engine.library.RunComparison;
import org.traindeck.engine.library.RunSummary;
import org.traindeck.engine.sinks.RunFolder;

/** {@code traindeck runs [OUTPUT_DIR] [--json]} and {@code traindeck compare RUN RUN...}. */
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
            runs = engine.runs(dir);
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
                    Double.isNaN(r.energyWh()) ? "-" : EnergyReport.format(r.energyWh()),
                    r.startedMillis() == 0 ? "-" : WHEN.format(Instant.ofEpochMilli(r.startedMillis()))));
        }
        return Main.OK;
    }

    static int compare(Engine engine, List<Path> runDirs, PrintStream out, PrintStream err) {
        List<Path> dirs = new ArrayList<>();
        for (Path dir : runDirs) {
            if (!Files.isRegularFile(RunFolder.of(dir).config())
                    || !Files.isRegularFile(RunFolder.of(dir).metricsJsonl())) {
                err.println("error: " + dir + " is not a run folder (it needs config.json and metrics.jsonl)");
                return Main.INVALID_INPUT;
            }
            dirs.add(dir);
        }
        RunComparison.Result r;
        try {
            r = engine.compare(dirs);
        } catch (IOException e) {
            err.println("error: " + e.getMessage());
            return Main.INVALID_INPUT;
        }
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
        if (r.differences().isEmpty()) {
            out.println("the configs do not differ");
        } else {
            out.println("config keys that differ:");
            r.differences().forEach((key, values) -> {
                StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-34s", key));
                values.forEach(v -> row.append(String.format(Locale.ROOT, " %24s", v)));
                out.println(row);
            });
        }
        return Main.OK;
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
