package org.traindeck.engine.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.library.MetricsDigests;
import org.traindeck.engine.trials.SupervisedTrial;

/** A sweep's trials with their status and metric, best first, read from the trials' own run folders. */
public final class SweepResults {

    /** One trial's line: its values, how its run stands, and the sweep metric's best and last values (NaN: none). */
    public record Row(SweepTrials.Trial trial, QueueEntry.Status status, double best, double last, Path runDir) {}

    private SweepResults() {}

    public static List<Row> rows(SweepSpec spec, List<SweepTrials.Trial> trials, List<QueueEntry> entries)
            throws IOException {
        MetricsDigests digests = new MetricsDigests();
        Map<String, QueueEntry> byLabel =
                entries.stream().collect(Collectors.toMap(QueueEntry::label, Function.identity(), (a, b) -> b));
        List<Row> rows = new ArrayList<>();
        for (SweepTrials.Trial t : trials) {
            QueueEntry e = byLabel.get(t.label());
            Path dir = e == null ? null : e.runDir();
            double[] bestLast = SweepBoard.metric(dir, spec.metric(), spec.maximize(), digests);
            rows.add(new Row(t, e == null ? QueueEntry.Status.PENDING : e.status(), bestLast[0], bestLast[1], dir));
        }
        Comparator<Row> byMetric = Comparator.comparingDouble(r -> spec.maximize() ? -r.best() : r.best());
        rows.sort(Comparator.<Row, Boolean>comparing(r -> Double.isNaN(r.best()))
                .thenComparing(byMetric)
                .thenComparingInt(r -> r.trial().number()));
        return rows;
    }

    /** What the sweep's queue records about it, so the app can show the sweep without its file. */
    public static JsonNode describe(SweepSpec spec) {
        ObjectNode d = JsonNodeFactory.instance.objectNode();
        d.put("name", spec.name());
        d.put("file", spec.file().toString());
        d.put("metric", spec.metric());
        d.put("goal", spec.maximize() ? "max" : "min");
        ArrayNode params = d.putArray("parameters");
        spec.parameterOrder().forEach(params::add);
        return d;
    }

    /**
     * What the queue says about trials that did not simply finish (why one failed; a crash of a trial's process, with
     * its crash log, even when it was continued and finished), a line each, in the table's order:
     * "trial 2 (lr-2): MESSAGE".
     */
    public static List<String> notes(List<Row> rows, List<QueueEntry> entries) {
        Map<String, QueueEntry> byLabel =
                entries.stream().collect(Collectors.toMap(QueueEntry::label, Function.identity(), (a, b) -> b));
        List<String> notes = new ArrayList<>();
        for (Row r : rows) {
            QueueEntry e = byLabel.get(r.trial().label());
            if (e != null
                    && e.message() != null
                    && !e.message().isBlank()
                    && (e.status() != QueueEntry.Status.FINISHED || e.message().contains(SupervisedTrial.CRASHED))) {
                notes.add("trial " + r.trial().number() + " (" + e.label() + "): " + e.message());
            }
        }
        return notes;
    }

    /** The table printed at the end of a sweep; the best row is marked with *. */
    public static String table(SweepSpec spec, List<Row> rows) {
        List<String> params = spec.parameterOrder();
        List<String[]> cells = new ArrayList<>();
        List<String> header = new ArrayList<>(List.of("", "trial"));
        header.addAll(params);
        header.addAll(List.of("status", spec.metric() + " (" + (spec.maximize() ? "max" : "min") + ")", "last", "run"));
        cells.add(header.toArray(String[]::new));
        boolean first = true;
        for (Row r : rows) {
            List<String> line = new ArrayList<>();
            line.add(first && !Double.isNaN(r.best()) ? "*" : "");
            first = false;
            line.add(String.valueOf(r.trial().number()));
            params.forEach(p -> line.add(SweepTrials.show(r.trial().values().get(p))));
            line.add(r.status().name().toLowerCase(Locale.ROOT));
            line.add(number(r.best()));
            line.add(number(r.last()));
            line.add(r.runDir() == null ? "" : String.valueOf(r.runDir().getFileName()));
            cells.add(line.toArray(String[]::new));
        }
        int[] widths = new int[header.size()];
        for (String[] row : cells) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : cells) {
            for (int i = 0; i < row.length; i++) {
                out.append(i < row.length - 1 ? String.format(Locale.ROOT, "%-" + widths[i] + "s  ", row[i]) : row[i]);
            }
            out.append(System.lineSeparator());
        }
        return out.toString();
    }

    private static String number(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4f", v);
    }
}
