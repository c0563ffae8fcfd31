package org.traindeck.engine.devices.energy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.traindeck.engine.events.MetricNames;

/**
 * What a run's devices used: watt-hours by device ("gpu0", "cpu" for the CPU packages), as the metrics
 * {@code energy/<device>_wh}, and a note for each device that could not be measured, or measured with pauses.
 */
public record EnergyReport(Map<String, Double> wattHours, List<String> notes) {

    public static final String METRIC_PREFIX = MetricNames.ENERGY_PREFIX;
    public static final String METRIC_SUFFIX = "_wh";

    public EnergyReport {
        wattHours = new LinkedHashMap<>(wattHours);
        notes = List.copyOf(notes);
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

    /** One line for the end-of-run summary: "energy: gpu0 12.4 Wh, cpu 3.1 Wh", or why there is no figure. */
    public String line() {
        List<String> parts = new ArrayList<>();
        wattHours.forEach((d, wh) -> parts.add(String.format(Locale.ROOT, "%s %s", d, format(wh))));
        String figures = parts.isEmpty() ? "cannot be measured here" : String.join(", ", parts);
        return "energy: " + figures + (notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")");
    }

    /**
     * The end-of-run line from a run's last metrics (the energy/<device>_wh ones); where there are none, that it could
     * not be measured, the run log giving each device's reason.
     */
    public static String lineFromMetrics(Map<String, Double> lastMetrics) {
        Map<String, Double> wh = new LinkedHashMap<>();
        lastMetrics.forEach((name, value) -> {
            String device = deviceOf(name);
            if (device != null && value != null) {
                wh.put(device, value);
            }
        });
        return wh.isEmpty()
                ? "energy: cannot be measured here (train.log says why)"
                : new EnergyReport(wh, List.of()).line();
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
