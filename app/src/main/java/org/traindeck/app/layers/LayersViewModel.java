package org.traindeck.app.layers;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.events.LayerMetrics.Figure;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;

/**
 * What the Layers view shows, worked out from a run's events: one row per layer in the order the run first reports
 * them, each with its latest figures, histograms and warning, and the update ratio of every layer over the run in a
 * bounded heat map. Plain code, no JavaFX: the view reads it on the FX thread, where the dashboard applies events,
 * and redraws when {@link #version()} changes.
 */
public final class LayersViewModel {

    /** Step columns of the heat map: 512 keeps a 100-layer run at 400 KB, and is wider than the view in pixels. */
    public static final int COLUMNS = 512;
    /** How a warning names a layer: {@code layer 'attn1'}. */
    private static final Pattern NAMED_LAYER = Pattern.compile("layer '([^']+)'");

    private final Map<String, LayerRow> rows = new LinkedHashMap<>();
    private final List<LayerRow> ordered = new ArrayList<>();
    private final Map<String, String> warnings = new HashMap<>();
    /** Metric name to its row and figure, so a name is parsed once, not on every step. */
    private final Map<String, Slot> slots = new HashMap<>();

    private final UpdateRatioGrid grid;
    private long version;

    private record Slot(LayerRow row, Figure figure) {}

    public LayersViewModel() {
        this(COLUMNS);
    }

    /** @param columns the heat map's most step columns */
    public LayersViewModel(int columns) {
        this.grid = new UpdateRatioGrid(columns);
    }

    /** Takes what concerns layers from a run's event; returns whether it did. */
    public boolean accept(EngineEvent event) {
        if (event instanceof MetricEvent m) {
            return metric(m);
        }
        if (event instanceof HistogramEvent h) {
            row(h.node()).histogram(h);
            version++;
            return true;
        }
        if (event instanceof LifecycleEvent l) {
            return lifecycle(l);
        }
        return false;
    }

    private boolean metric(MetricEvent m) {
        Slot slot = slots.get(m.name());
        if (slot == null) {
            slot = parse(m.name());
            if (slot == null) {
                return false;
            }
            slots.put(m.name(), slot);
        }
        slot.row().figure(slot.figure(), m.step(), m.value());
        if (slot.figure() == Figure.UPDATE_RATIO) {
            grid.add(slot.row().index(), m.step(), m.value());
        }
        version++;
        return true;
    }

    /** The row and figure of a per-layer metric name, null for any other name. */
    private Slot parse(String name) {
        return LayerMetrics.parse(name)
                .map(f -> new Slot(row(f.node()), f.figure()))
                .orElse(null);
    }

    private boolean lifecycle(LifecycleEvent l) {
        switch (l.kind()) {
            case WARNING -> {
                Matcher named = NAMED_LAYER.matcher(l.message());
                boolean any = false;
                while (named.find()) {
                    warnings.put(named.group(1), l.message());
                    LayerRow row = rows.get(named.group(1));
                    if (row != null) {
                        row.warning(l.message());
                    }
                    any = true;
                }
                if (any) {
                    version++;
                }
                return any;
            }
            case REWIND, RUN_RESUMED -> {
                grid.truncateAfterStep(l.step());
                ordered.forEach(r -> r.truncateAfterStep(l.step()));
                version++;
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    private LayerRow row(String node) {
        LayerRow row = rows.get(node);
        if (row == null) {
            row = new LayerRow(node, grid.addRow());
            row.warning(warnings.get(node));
            rows.put(node, row);
            ordered.add(row);
        }
        return row;
    }

    /** Forgets the run shown. */
    public void clear() {
        rows.clear();
        ordered.clear();
        warnings.clear();
        slots.clear();
        grid.clear();
        version++;
    }

    /** The layers in heat-map order (read-only). */
    public List<LayerRow> rows() {
        return Collections.unmodifiableList(ordered);
    }

    /** The row of {@code node}, null if the run has not reported it. */
    public LayerRow find(String node) {
        return rows.get(node);
    }

    public UpdateRatioGrid grid() {
        return grid;
    }

    /** Changes with every change, so the view knows whether to redraw. */
    public long version() {
        return version;
    }
}
