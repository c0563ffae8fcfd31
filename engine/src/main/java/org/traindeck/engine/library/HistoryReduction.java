package org.traindeck.engine.library;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;

/**
 * A run's history cut to what a chart can show, by the rule the live charts follow (the app's MinMaxReducer): each
 * series (a metric on a device) falls into at most {@link #BUCKETS} step ranges, and each range keeps its lowest and
 * highest point in the order they occur, so every spike survives. The file's length is not known ahead, so the ranges
 * start one step wide and double (neighbours merged) whenever a series outgrows them. A series shorter than
 * {@code BUCKETS} steps is kept whole. Lifecycle events are kept, except that past {@link #NOISY_LIMIT} of a kind that
 * can repeat without end (epochs, checkpoints, warnings) only its latest is.
 */
public final class HistoryReduction {

    static final int BUCKETS = 2048;
    static final int NOISY_LIMIT = 10_000;
    /** More series than any run logs; a file with endless names does not grow the reduction. */
    static final int MAX_SERIES = 1_000;

    private record Kept(long order, EngineEvent event) {}

    private record SeriesKey(String name, String device) {}

    private long order;
    private final Map<SeriesKey, Series> series = new HashMap<>();
    private final List<Kept> lifecycle = new ArrayList<>();
    private final Map<LifecycleEvent.Kind, Integer> noisyCounts = new EnumMap<>(LifecycleEvent.Kind.class);
    private final Map<LifecycleEvent.Kind, Kept> latestNoisy = new EnumMap<>(LifecycleEvent.Kind.class);

    public void add(EngineEvent e) {
        Kept kept = new Kept(order++, e);
        if (e instanceof MetricEvent m) {
            SeriesKey key = new SeriesKey(m.name(), m.device());
            Series s = series.get(key);
            if (s == null && series.size() < MAX_SERIES) {
                s = new Series(m.step());
                series.put(key, s);
            }
            if (s != null) {
                s.add(kept, m);
            }
        } else if (e instanceof LifecycleEvent l) {
            if (l.kind() == LifecycleEvent.Kind.REWIND) {
                series.values().forEach(s -> s.forgetAfter(l.step()));
            }
            if (isNoisy(l.kind()) && noisyCounts.merge(l.kind(), 1, Integer::sum) > NOISY_LIMIT) {
                latestNoisy.put(l.kind(), kept);
            } else {
                lifecycle.add(kept);
            }
        }
    }

    /** What was kept, in the file's order. */
    public List<EngineEvent> events() {
        List<Kept> all = new ArrayList<>(lifecycle);
        all.addAll(latestNoisy.values());
        series.values().forEach(s -> s.collect(all));
        all.sort(Comparator.comparingLong(Kept::order));
        return all.stream().map(Kept::event).toList();
    }

    private static boolean isNoisy(LifecycleEvent.Kind kind) {
        return kind == LifecycleEvent.Kind.EPOCH_FINISHED
                || kind == LifecycleEvent.Kind.CHECKPOINT_SAVED
                || kind == LifecycleEvent.Kind.WARNING;
    }

    /** One series' buckets: {@code width} steps each, from {@code origin}. */
    private static final class Series {
        private final long origin;
        private long width = 1;
        private final Kept[] low = new Kept[BUCKETS];
        private final Kept[] high = new Kept[BUCKETS];

        Series(long origin) {
            this.origin = origin;
        }

        void add(Kept kept, MetricEvent m) {
            int at = bucket(m.step());
            while (at >= BUCKETS) {
                widen();
                at = bucket(m.step());
            }
            low[at] = lower(low[at], kept);
            high[at] = higher(high[at], kept);
        }

        private int bucket(long step) {
            long offset = Math.max(0, step - origin) / width;
            return (int) Math.min(offset, Integer.MAX_VALUE);
        }

        private void widen() {
            for (int i = 0; i < BUCKETS / 2; i++) {
                low[i] = lower(low[2 * i], low[2 * i + 1]);
                high[i] = higher(high[2 * i], high[2 * i + 1]);
            }
            for (int i = BUCKETS / 2; i < BUCKETS; i++) {
                low[i] = null;
                high[i] = null;
            }
            width *= 2;
        }

        /** After a rewind the steps past it are trained again: what was kept of them goes. */
        void forgetAfter(long step) {
            for (int i = 0; i < BUCKETS; i++) {
                if (low[i] != null && step(low[i]) > step) {
                    low[i] = null;
                }
                if (high[i] != null && step(high[i]) > step) {
                    high[i] = null;
                }
                low[i] = low[i] == null ? high[i] : low[i];
                high[i] = high[i] == null ? low[i] : high[i];
            }
        }

        void collect(List<Kept> into) {
            for (int i = 0; i < BUCKETS; i++) {
                if (low[i] != null) {
                    into.add(low[i]);
                    if (!Objects.equals(low[i], high[i])) {
                        into.add(high[i]);
                    }
                }
            }
        }

        private static long step(Kept k) {
            return ((MetricEvent) k.event()).step();
        }

        private static double value(Kept k) {
            return ((MetricEvent) k.event()).value();
        }

        /** As MinMaxReducer: the first of equals stays, and a NaN gives way to any value. */
        private static Kept lower(Kept a, Kept b) {
            if (a == null || b == null) {
                return a == null ? b : a;
            }
            return value(b) < value(a) || Double.isNaN(value(a)) ? b : a;
        }

        private static Kept higher(Kept a, Kept b) {
            if (a == null || b == null) {
                return a == null ? b : a;
            }
            return value(b) > value(a) || Double.isNaN(value(a)) ? b : a;
        }
    }
}
