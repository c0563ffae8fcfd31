package org.traindeck.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The table the benchmark prints: one row per figure, with its baseline and the ratio. */
final class Report {

    record Row(String benchmark, String figure, String value, String baseline, String ratio, String target) {}

    private final List<Row> rows = new ArrayList<>();

    void add(String benchmark, String figure, String value, String baseline, String ratio, String target) {
        rows.add(new Row(benchmark, figure, value, baseline, ratio, target));
        System.out.println("  " + benchmark + " / " + figure + ": " + value + " vs " + baseline + " → " + ratio);
    }

    static String ratio(double r) {
        return String.format(Locale.ROOT, "%.2f×", r);
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("| benchmark | figure | TrainDeck (median, min–max) | baseline (same run) | ratio | target |\n");
        b.append("|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            b.append("| ")
                    .append(r.benchmark())
                    .append(" | ")
                    .append(r.figure())
                    .append(" | ")
                    .append(r.value())
                    .append(" | ")
                    .append(r.baseline())
                    .append(" | ")
                    .append(r.ratio())
                    .append(" | ")
                    .append(r.target())
                    .append(" |\n");
        }
        return b.toString();
    }
}
