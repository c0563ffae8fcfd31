package org.traindeck.engine.api.runs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.traindeck.engine.events.MetricNames;

/**
 * What a run's devices used: watt-hours by device ("gpu0", "cpu" for the CPU packages), as the metrics
 * {@code energy/<device>_wh}; by stage, with the samples each trained; a note for each device that could not be
 * measured, or measured with pauses; and, where nothing could be measured, why, in a few words.
 *
 * @param unavailable why nothing was measured ("no RAPL counters or GPU power readings"); null when something was
 * @param stages      each stage's share, in order; empty when nothing was measured
 */
public record EnergyReport(
        Map<String, Double> wattHours, List<String> notes, String unavailable, List<StageEnergy> stages) {

    public static final String METRIC_PREFIX = MetricNames.ENERGY_PREFIX;
    public static final String METRIC_SUFFIX = "_wh";

    /** What the line says of a run whose folder records no energy (one trained before it was recorded). */
    public static final String NOT_RECORDED = "not recorded for this run";

    /** One stage's energy, all devices together, and the samples it trained meanwhile. */
    public record StageEnergy(String stage, double wattHours, long samples) {

        /** Watt-hours per 1,000 samples; NaN when the stage trained none. */
        public double perThousandSamples() {
            return samples > 0 ? wattHours * 1000 / samples : Double.NaN;
        }
    }

    public EnergyReport {
        wattHours = new LinkedHashMap<>(wattHours);
        notes = List.copyOf(notes);
        stages = List.copyOf(stages);
    }

    /** Figures by device without stages; empty figures say nothing was measured, the notes why. */
    public EnergyReport(Map<String, Double> wattHours, List<String> notes) {
        this(wattHours, notes, wattHours.isEmpty() ? "cannot be measured here" : null, List.of());
    }

    /** Nothing measured, for {@code reason}. */
    public static EnergyReport unavailable(String reason, List<String> notes) {
        return new EnergyReport(Map.of(), notes, reason, List.of());
    }

    /** This report with each stage's share. */
    public EnergyReport withStages(List<StageEnergy> byStage) {
        return new EnergyReport(wattHours, notes, unavailable, byStage);
    }

    /** All devices together; NaN when nothing was measured. */
    public double total() {
        return wattHours.isEmpty()
                ? Double.NaN
                : wattHours.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /**
     * What a table's cell says: "1.23 Wh", or "n/a (no RAPL counters or GPU power readings)".
     */
    public String cell() {
        return wattHours.isEmpty()
                ? "n/a (" + (unavailable == null ? NOT_RECORDED : unavailable) + ")"
                : format(total());
    }

    /**
     * The end-of-run line: "energy: 1.5 Wh (cpu 1.5 Wh); stage "main" 1.5 Wh, 0.125 Wh per 1,000 samples", or
     * "energy: n/a (no RAPL counters or GPU power readings)".
     */
    public String summary() {
        if (wattHours.isEmpty()) {
            return "energy: " + cell();
        }
        List<String> parts = new ArrayList<>();
        wattHours.forEach((d, wh) -> parts.add(d + " " + format(wh)));
        StringBuilder b = new StringBuilder("energy: " + format(total()) + " (" + String.join(", ", parts) + ")");
        for (StageEnergy s : stages) {
            b.append("; stage \"").append(s.stage()).append("\" ").append(format(s.wattHours()));
            if (s.samples() > 0) {
                b.append(", ").append(format(s.perThousandSamples())).append(" per 1,000 samples");
            }
        }
        return b.toString();
    }

    public static String metricName(String device) {
        return METRIC_PREFIX + device + METRIC_SUFFIX;
    }

    /** The device a metric name is about, or null for another metric. */
    public static String deviceOf(String metric) {
        return metric.startsWith(METRIC_PREFIX)
                        && metric.endsWith(METRIC_SUFFIX)
                        && metric.length() > METRIC_PREFIX.length() + METRIC_SUFFIX.length()
                ? metric.substring(METRIC_PREFIX.length(), metric.length() - METRIC_SUFFIX.length())
                : null;
    }

    /** One line for the run log: "energy: gpu0 12.4 Wh, cpu 3.1 Wh", or why there is no figure, with every note. */
    public String line() {
        List<String> parts = new ArrayList<>();
        wattHours.forEach((d, wh) -> parts.add(String.format(Locale.ROOT, "%s %s", d, format(wh))));
        if (parts.isEmpty()) {
            return "energy: " + cell() + (notes.isEmpty() ? "" : ": " + String.join("; ", notes));
        }
        return "energy: " + String.join(", ", parts) + (notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")");
    }

    /**
     * The figures of a run's last metrics (the energy/<device>_wh ones), for a run whose folder has no energy record;
     * where there are none, that it was not recorded.
     */
    public static EnergyReport fromMetrics(Map<String, Double> lastMetrics) {
        Map<String, Double> wh = new LinkedHashMap<>();
        lastMetrics.forEach((name, value) -> {
            String device = deviceOf(name);
            if (device != null && value != null) {
                wh.put(device, value);
            }
        });
        return wh.isEmpty() ? unavailable(NOT_RECORDED, List.of()) : new EnergyReport(wh, List.of());
    }

    /** The watt-hours of all devices together from a run's last metrics; NaN when none was measured. */
    public static double totalFromMetrics(Map<String, Double> lastMetrics) {
        double total = Double.NaN;
        for (Map.Entry<String, Double> e : lastMetrics.entrySet()) {
            if (deviceOf(e.getKey()) != null && e.getValue() != null) {
                total = (Double.isNaN(total) ? 0 : total) + e.getValue();
            }
        }
        return total;
    }

    public static String format(double wattHours) {
        return wattHours >= 1000
                ? String.format(Locale.ROOT, "%.2f kWh", wattHours / 1000)
                : wattHours >= 1
                        ? String.format(Locale.ROOT, "%.1f Wh", wattHours)
                        : String.format(Locale.ROOT, "%.3f Wh", wattHours);
    }
}
