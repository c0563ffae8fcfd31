package org.traindeck.engine.library;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.sinks.MetricsJsonlReader;

/**
 * What one pass over a run's metrics.jsonl says: how far it got, when it started, how it ended, and for every
 * run-level metric its lowest, highest and last finite value. Listings and sweep tables read this, not the events.
 */
public record MetricsDigest(
        long steps, double elapsedSeconds, long startedMillis, String ended, Map<String, Values> metrics) {

    /** A metric's lowest, highest and last finite value. */
    public record Values(double low, double high, double last) {

        static final Values NONE = new Values(Double.NaN, Double.NaN, Double.NaN);

        Values and(double v) {
            return Double.isNaN(last) ? new Values(v, v, v) : new Values(Math.min(low, v), Math.max(high, v), v);
        }
    }

    public MetricsDigest {
        metrics = Map.copyOf(metrics);
    }

    /** Reads {@code runDir}'s metrics.jsonl line by line; memory stays the size of the digest, whatever the file's. */
    public static MetricsDigest read(Path runDir) throws IOException {
        Fold fold = new Fold();
        MetricsJsonlReader.forEach(runDir, fold::add);
        return fold.digest();
    }

    /** A digest made one event at a time; {@code ended} is "finished", "stopped", "failed", or null while it runs (or was cut off). */
    static final class Fold {
        private long steps;
        private double elapsed;
        private long started;
        private String ended;
        private final Map<String, Values> metrics = new HashMap<>();

        void add(EngineEvent e) {
            if (e instanceof MetricEvent m) {
                steps = Math.max(steps, m.step());
                // per-layer figures are the Layers view's, not the run's: a listing or sweep table gets no column per
                // layer
                if (m.device() == null && Double.isFinite(m.value()) && !LayerMetrics.isLayerMetric(m.name())) {
                    metrics.put(
                            m.name(),
                            metrics.getOrDefault(m.name(), Values.NONE).and(m.value()));
                }
            } else if (e instanceof LifecycleEvent l) {
                steps = Math.max(steps, l.step());
                elapsed = Math.max(elapsed, l.elapsedSeconds());
                if (l.kind() == LifecycleEvent.Kind.RUN_STARTED) {
                    started = l.wallTimeMillis();
                }
                ended = switch (l.kind()) {
                    case RUN_FINISHED -> "finished";
                    case RUN_STOPPED -> "stopped";
                    case RUN_FAILED -> "failed";
                    case RUN_RESUMED, RUN_STARTED -> null;
                    default -> ended;
                };
            }
        }

        MetricsDigest digest() {
            return new MetricsDigest(steps, elapsed, started, ended, metrics);
        }
    }

    /** The metric's best value (its highest when higher is better, else its lowest); NaN when it was never logged. */
    public double best(String metric, boolean higherIsBetter) {
        Values v = metrics.getOrDefault(metric, Values.NONE);
        return higherIsBetter ? v.high() : v.low();
    }

    /** The metric's last value; NaN when it was never logged. */
    public double last(String metric) {
        return metrics.getOrDefault(metric, Values.NONE).last();
    }
}
