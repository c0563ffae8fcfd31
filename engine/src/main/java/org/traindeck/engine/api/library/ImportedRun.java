package org.traindeck.engine.api.library;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.traindeck.engine.events.MetricEvent;

/**
 * A run another tool logged for TensorBoard, read (never written) from its event files: its scalar tags and how the
 * reading went.
 *
 * @param name          what it is called beside TrainDeck's runs: its folder's name
 * @param source        the event file or folder it was read from
 * @param files         the event files read, in order
 * @param startedMillis the first event's wall time
 * @param tags          each scalar tag's points, in the order the tags first appear
 * @param notes         what the reading left out (an incomplete last record, points a restart replaced)
 */
public record ImportedRun(
        String name,
        Path source,
        List<Path> files,
        long startedMillis,
        Map<String, TagSeries> tags,
        List<String> notes) {

    /** What the Runs table says of an imported run instead of a TrainDeck status. */
    public static final String STATUS = "imported";

    public ImportedRun {
        files = List.copyOf(files);
        tags = new LinkedHashMap<>(tags);
        notes = List.copyOf(notes);
    }

    /**
     * The metric each tag is drawn as: {@code mapping}'s, except that where two tags map to one metric only the first
     * does (the other keeps its own name), so that two curves are never drawn as one.
     */
    public Map<String, String> metrics(TagMapping mapping) {
        Map<String, String> metrics = new LinkedHashMap<>();
        Set<String> taken = new HashSet<>();
        for (String tag : tags.keySet()) {
            String metric = mapping.metricOf(tag);
            metrics.put(tag, taken.add(metric) ? metric : tag);
        }
        return metrics;
    }

    /** The series a metric is drawn from under {@code mapping}, or null when no tag maps to it. */
    public TagSeries series(String metric, TagMapping mapping) {
        for (Map.Entry<String, String> m : metrics(mapping).entrySet()) {
            if (m.getValue().equals(metric)) {
                return tags.get(m.getKey());
            }
        }
        return null;
    }

    /** The highest step of any tag. */
    public long steps() {
        return tags.values().stream().mapToLong(TagSeries::lastStep).max().orElse(0);
    }

    /** The time from the first event to the last point. */
    public double elapsedSeconds() {
        double last = tags.values().stream()
                .mapToDouble(s -> s.size() == 0 ? 0 : s.wallTimes()[s.size() - 1])
                .max()
                .orElse(0);
        return Math.max(0, last - startedMillis / 1000.0);
    }

    /**
     * Every point as a TrainDeck metric event under {@code mapping}, tag by tag: one run-wide series each, named by
     * the run, its elapsed time counted from the first event (the charts' time axis).
     */
    public void forEachEvent(TagMapping mapping, Consumer<MetricEvent> each) {
        double start = startedMillis / 1000.0;
        metrics(mapping).forEach((tag, metric) -> {
            TagSeries s = tags.get(tag);
            for (int i = 0; i < s.size(); i++) {
                double wall = s.wallTimes()[i];
                each.accept(new MetricEvent(
                        name,
                        STATUS,
                        0,
                        0,
                        s.steps()[i],
                        Math.round(wall * 1000),
                        Math.max(0, wall - start),
                        metric,
                        s.values()[i],
                        null));
            }
        });
    }
}
