package org.traindeck.app.runs;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.scene.control.TableColumn;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.events.Metric;
import org.traindeck.engine.events.MetricTable;

/** The runs table's columns and what their cells hold: values that sort as numbers or times and read as text. */
final class RunsTableCells {

    private static final DateTimeFormatter WHEN =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

    private RunsTableCells() {}

    static <T extends Comparable<? super T>> TableColumn<RunSummary, T> column(
            String title, Function<RunSummary, T> value) {
        TableColumn<RunSummary, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
        return c;
    }

    /** A metric's value that sorts as a number, written as the metric table writes it; "-" when never measured. */
    record Figure(double value, String metric) implements Comparable<Figure> {
        @Override
        public int compareTo(Figure o) {
            return Double.compare(
                    Double.isNaN(value) ? Double.MAX_VALUE : value, Double.isNaN(o.value) ? Double.MAX_VALUE : o.value);
        }

        @Override
        public String toString() {
            if (Double.isNaN(value)) {
                return "-";
            }
            Metric.Format format = metric == null
                    ? Metric.Format.GENERAL
                    : MetricTable.of(metric).format();
            return format.write(value);
        }
    }

    /** A run's energy that sorts as a number and reads "1.23 Wh", or "n/a (why)" where it was not measured. */
    record Energy(RunSummary run) implements Comparable<Energy> {
        @Override
        public int compareTo(Energy o) {
            return new Figure(run.energyWh(), null).compareTo(new Figure(o.run.energyWh(), null));
        }

        @Override
        public String toString() {
            return run.energyText();
        }
    }

    /** A start time that sorts by time and reads as a date. */
    record When(long millis) implements Comparable<When> {
        @Override
        public int compareTo(When o) {
            return Long.compare(millis, o.millis);
        }

        @Override
        public String toString() {
            return millis == 0 ? "" : WHEN.format(Instant.ofEpochMilli(millis));
        }
    }
}
