package org.traindeck.engine.cli.commands;

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
import java.util.concurrent.Callable;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.api.runs.RunSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code traindeck runs [OUTPUT_DIR] [--json]}: the runs in an output folder, a line each. */
@Command(
        name = "runs",
        mixinStandardHelpOptions = true,
        description =
                "The runs in an output folder: status, steps, the monitored metric's best and last values, duration, start.")
final class RunsCommand implements Callable<Integer> {

    private static final DateTimeFormatter WHEN =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

    private final CliContext cli;

    @Parameters(
            paramLabel = "OUTPUT_DIR",
            arity = "0..1",
            defaultValue = "runs",
            description = "default: ${DEFAULT-VALUE}")
    Path dir;

    @Option(names = "--json", description = "as JSON, for scripts")
    boolean json;

    RunsCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        PrintStream out = cli.out();
        if (!Files.isDirectory(dir)) {
            cli.err().println("error: no such output folder: " + dir);
            return ExitCodes.INVALID_INPUT;
        }
        List<RunSummary> runs;
        try {
            runs = cli.engine().pastRuns().list(dir);
        } catch (IOException e) {
            cli.err().println("error: " + e.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        if (json) {
            out.println(asJson(runs));
            return ExitCodes.OK;
        }
        if (runs.isEmpty()) {
            out.println("no runs in " + dir);
            return ExitCodes.OK;
        }
        printTable(runs, out);
        energyNotes(runs, out);
        return ExitCodes.OK;
    }

    private static String asJson(List<RunSummary> runs) {
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
            return mapper.writerWithDefaultPrettyPrinter().writeValueAsString(list);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void printTable(List<RunSummary> runs, PrintStream out) {
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

    private static void putNumber(ObjectNode o, String key, double v) {
        if (Double.isNaN(v)) {
            o.putNull(key);
        } else {
            o.put(key, v);
        }
    }

    static String number(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4g", v);
    }

    private static String duration(double seconds) {
        long s = Math.round(seconds);
        return s >= 3600
                ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
