package org.traindeck.engine.library;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.traindeck.engine.events.Metric;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.MetricTable;
import org.traindeck.engine.sinks.MetricsJsonlReader;
import org.traindeck.engine.sinks.RunFolder;

/** Runs side by side: their final and best epoch-level metrics, and the config keys whose values differ. */
public final class RunComparison {

    /** The epoch-level metrics compared, in the metric table's order. */
    public static final List<String> METRICS =
            MetricTable.epochFigures().stream().map(Metric::name).toList();

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A metric's final and best value in one run (NaN when the run never measured it). */
    public record Value(double last, double best) {}

    /**
     * @param metrics     metric name → one value per run, in the runs' order (only metrics some run measured)
     * @param differences JSON path → one value per run ("(absent)" where a run has none), only where they differ
     */
    public record Result(List<String> runs, Map<String, List<Value>> metrics, Map<String, List<String>> differences) {}

    private RunComparison() {}

    /** Where a run compared by its events alone (another tool's logs, without a config) gets them from. */
    public interface EventSource {
        void forEach(Consumer<MetricEvent> each) throws IOException;
    }

    /** A run that is not a TrainDeck run folder: named, and read through its events. */
    public record Other(String name, EventSource events) {}

    /** What a run compared with TrainDeck's runs has in its config column: it has none. */
    public static final String NO_CONFIG = "(no config)";

    public static Result compare(List<Path> runDirs) throws IOException {
        return compare(runDirs, List.of());
    }

    /**
     * TrainDeck's runs and others side by side, in that order. With others the per-step training loss is compared too
     * (what any tool logs); their config column reads {@link #NO_CONFIG}.
     */
    public static Result compare(List<Path> runDirs, List<Other> others) throws IOException {
        List<String> names = new ArrayList<>();
        List<String> compared = new ArrayList<>(METRICS);
        if (!others.isEmpty()) {
            compared.add(MetricNames.TRAIN_LOSS);
        }
        Map<String, List<Value>> metrics = new LinkedHashMap<>();
        for (String m : compared) {
            metrics.put(m, new ArrayList<>());
        }
        for (Path dir : runDirs) {
            names.add(dir.getFileName().toString());
            Map<String, double[]> seen = new TreeMap<>();
            MetricsJsonlReader.forEach(dir, e -> {
                if (e instanceof MetricEvent m) {
                    fold(seen, metrics, m);
                }
            });
            addValues(metrics, seen);
        }
        for (Other other : others) {
            names.add(other.name());
            Map<String, double[]> seen = new TreeMap<>();
            other.events().forEach(m -> fold(seen, metrics, m));
            addValues(metrics, seen);
        }
        metrics.values().removeIf(values -> values.stream().allMatch(v -> Double.isNaN(v.last())));
        Map<String, List<String>> differences = configDifferences(runDirs);
        differences.replaceAll((key, values) -> {
            List<String> all = new ArrayList<>(values);
            others.forEach(o -> all.add(NO_CONFIG));
            return all;
        });
        return new Result(names, metrics, differences);
    }

    private static void fold(Map<String, double[]> seen, Map<String, List<Value>> metrics, MetricEvent m) {
        if (metrics.containsKey(m.name()) && m.device() == null && Double.isFinite(m.value())) {
            boolean higher = MetricTable.of(m.name()).higherIsBetter();
            double[] v = seen.computeIfAbsent(m.name(), k -> new double[] {Double.NaN, Double.NaN});
            v[0] = m.value();
            v[1] = Double.isNaN(v[1]) || (higher ? m.value() > v[1] : m.value() < v[1]) ? m.value() : v[1];
        }
    }

    private static void addValues(Map<String, List<Value>> metrics, Map<String, double[]> seen) {
        metrics.forEach((m, values) -> {
            double[] v = seen.get(m);
            values.add(v == null ? new Value(Double.NaN, Double.NaN) : new Value(v[0], v[1]));
        });
    }

    /** The config keys (JSON paths) whose values differ between the runs, from their config.json alone. */
    public static Map<String, List<String>> configDifferences(List<Path> runDirs) throws IOException {
        List<Map<String, String>> configs = new ArrayList<>();
        for (Path dir : runDirs) {
            Map<String, String> flat = new TreeMap<>();
            flatten(JSON.readTree(RunFolder.of(dir).config().toFile()), "", flat);
            configs.add(flat);
        }
        Map<String, List<String>> differences = new LinkedHashMap<>();
        TreeSet<String> keys = new TreeSet<>();
        configs.forEach(c -> keys.addAll(c.keySet()));
        for (String key : keys) {
            List<String> values =
                    configs.stream().map(c -> c.getOrDefault(key, "(absent)")).toList();
            if (values.stream().distinct().count() > 1) {
                differences.put(key, values);
            }
        }
        return differences;
    }

    /** "stages[0].optimizer.learningRate" → "0.002", for every leaf of a config. */
    private static void flatten(JsonNode node, String path, Map<String, String> out) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> f = fields.next();
                flatten(f.getValue(), path.isEmpty() ? f.getKey() : path + "." + f.getKey(), out);
            }
        } else if (node.isArray() && node.size() > 0 && node.get(0).isContainerNode()) {
            for (int i = 0; i < node.size(); i++) {
                flatten(node.get(i), path + "[" + i + "]", out);
            }
        } else {
            out.put(path, node.isTextual() ? node.asText() : Objects.toString(node));
        }
    }
}
