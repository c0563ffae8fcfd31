package org.traindeck.app.devices;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import javafx.geometry.Insets;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.config.DocumentEdits;
import org.traindeck.app.config.JsonTree;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.devices.DeviceInventory;
import org.traindeck.engine.devices.GpuInfo;
import org.traindeck.engine.events.MetricEvent;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The GPU selector: every device the inventory found, with live memory, utilisation and temperature; the CPU (with
 * a number of data-parallel workers) when there is no GPU or when chosen. The choice is written to the config's
 * "devices", and follows it when the JSON is edited by hand.
 */
public final class DeviceSelector extends VBox {

    private final ConfigDocument document;
    private final Map<Integer, CheckBox> gpuBoxes = new LinkedHashMap<>();
    private final Map<String, Label> live = new LinkedHashMap<>();
    private final Map<String, Map<String, Double>> latest = new ConcurrentHashMap<>();
    private final CheckBox cpuBox = new CheckBox();
    private final Spinner<Integer> cpuWorkers = new Spinner<>(1, 64, 1);
    private final Label status = new Label("looking for devices…");
    private boolean updating;

    public DeviceSelector(ConfigDocument document) {
        super(6);
        this.document = document;
        setId("device-selector");
        setPadding(new Insets(8));
        status.setId("device-status");
        status.setWrapText(true);
        cpuBox.setId("device-cpu");
        cpuWorkers.setId("cpu-workers");
        cpuWorkers.setEditable(true);
        cpuWorkers.setPrefWidth(70);
        getChildren().add(status);
        document.textProperty().addListener((o, a, b) -> {
            if (!updating) {
                follow();
            }
        });
    }

    /** Shows the inventory (called once it is known, on the FX thread). */
    public void show(DeviceInventory inventory) {
        getChildren().clear();
        gpuBoxes.clear();
        live.clear();
        for (GpuInfo g : inventory.gpus()) {
            CheckBox box = new CheckBox(g.id() + " · " + (g.name() == null ? "GPU" : g.name()));
            box.setId("device-" + g.id());
            Label figures = new Label(figures(g));
            figures.setId("live-" + g.id());
            figures.getStyleClass().add("device-figures");
            box.selectedProperty().addListener((o, a, b) -> selectionChanged(box));
            gpuBoxes.put(g.index(), box);
            live.put(g.id(), figures);
            getChildren().add(new VBox(1, box, figures));
        }
        var h = inventory.host();
        cpuBox.setText("CPU · " + h.cpuModel() + " (" + h.physicalCores() + " cores, " + h.logicalCores() + " threads)");
        cpuBox.selectedProperty().addListener((o, a, b) -> selectionChanged(cpuBox));
        cpuWorkers.valueProperty().addListener((o, a, b) -> selectionChanged(cpuBox));
        Label cpuFigures = new Label(h.memoryTotalMiB() + " MiB memory");
        cpuFigures.setId("live-cpu");
        cpuFigures.getStyleClass().add("device-figures");
        live.put("cpu", cpuFigures);
        HBox workers = new HBox(6, new Label("data-parallel workers"), cpuWorkers);
        getChildren().add(new VBox(1, cpuBox, cpuFigures, workers));
        status.setText(inventory.hasGpus() ? inventory.gpus().size() + " GPU(s) found"
                : "No GPU: " + inventory.noGpuReason() + ". Training runs on the CPU.");
        getChildren().add(0, status);
        inventory.notes().forEach(n -> getChildren().add(new Label("note: " + n)));
        follow();
    }

    private static String figures(GpuInfo g) {
        return String.format(Locale.ROOT, "%s / %s MiB · util %s · %s", or(g.memoryUsedMiB()), or(g.memoryTotalMiB()),
                g.utilizationPct() == null ? "-" : Math.round(g.utilizationPct()) + "%",
                g.temperatureC() == null ? "-" : Math.round(g.temperatureC()) + "°C");
    }

    private static String or(Object o) {
        return o == null ? "-" : o.toString();
    }

    /** A telemetry figure (any thread); shown at the next {@link #refresh()}. */
    public void accept(MetricEvent m) {
        if (m.device() != null) {
            latest.computeIfAbsent(m.device(), d -> new ConcurrentHashMap<>())
                    .put(m.name().substring(m.name().lastIndexOf('/') + 1), m.value());
        }
    }

    /** Updates the live figures (FX thread). */
    public void refresh() {
        latest.forEach((device, v) -> {
            Label label = live.get(device);
            if (label == null) {
                return;
            }
            if (device.equals("cpu")) {
                label.setText(String.format(Locale.ROOT, "load %s · heap %s MiB · off-heap %s MiB · system %s MiB used",
                        fmt(v.get("load_pct"), "%.0f%%"), fmt(v.get("heap_used_mib"), "%.0f"), fmt(v.get("offheap_mib"), "%.0f"),
                        fmt(v.get("memory_used_mib"), "%.0f")));
            } else {
                label.setText(String.format(Locale.ROOT, "%s / %s MiB · util %s · %s", fmt(v.get("memory_used_mib"), "%.0f"),
                        fmt(v.get("memory_total_mib"), "%.0f"), fmt(v.get("utilization_pct"), "%.0f%%"), fmt(v.get("temperature_c"), "%.0f°C")));
            }
        });
    }

    private static String fmt(Double d, String format) {
        return d == null ? "-" : String.format(Locale.ROOT, format, d);
    }

    private void selectionChanged(CheckBox source) {
        if (updating) {
            return;
        }
        updating = true;
        try {
            if (source == cpuBox && cpuBox.isSelected()) {
                gpuBoxes.values().forEach(b -> b.setSelected(false));
            } else if (source != cpuBox && source.isSelected()) {
                cpuBox.setSelected(false);
            }
            List<Integer> gpus = gpuBoxes.entrySet().stream().filter(e -> e.getValue().isSelected()).map(Map.Entry::getKey).toList();
            if (gpus.isEmpty() && !cpuBox.isSelected()) {
                cpuBox.setSelected(true);
            }
            JsonNode value;
            if (!gpus.isEmpty()) {
                ArrayNode a = JsonNodeFactory.instance.arrayNode();
                gpus.forEach(a::add);
                value = a;
            } else {
                int n = cpuWorkers.getValue() == null ? 1 : cpuWorkers.getValue();
                value = JsonNodeFactory.instance.textNode(n > 1 ? "cpu:" + n : "cpu");
            }
            DocumentEdits.set(document, "devices", value);
        } finally {
            updating = false;
        }
    }

    /** Shows the config's "devices" as the selection. */
    private void follow() {
        var tree = JsonTree.parse(document.text());
        if (tree == null) {
            return;
        }
        JsonNode d = JsonTree.get(tree, "devices");
        updating = true;
        try {
            DeviceSelection sel = d == null ? DeviceSelection.CPU
                    : d.isArray() ? DeviceSelection.parse(JsonTree.toText(d).replace(" ", "")) : DeviceSelection.parse(d.asText());
            if (sel == null) {
                return;
            }
            switch (sel.kind()) {
                case CPU -> {
                    cpuBox.setSelected(true);
                    cpuWorkers.getValueFactory().setValue(sel.cpuWorkers());
                    gpuBoxes.values().forEach(b -> b.setSelected(false));
                }
                case ALL_GPUS -> {
                    gpuBoxes.values().forEach(b -> b.setSelected(true));
                    cpuBox.setSelected(gpuBoxes.isEmpty());
                }
                case GPU_LIST -> {
                    gpuBoxes.forEach((i, b) -> b.setSelected(sel.gpuIndices().contains(i)));
                    cpuBox.setSelected(false);
                }
            }
        } finally {
            updating = false;
        }
    }
}
