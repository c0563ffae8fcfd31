package org.traindeck.app.devices;

import java.util.LinkedHashMap;
import java.util.Map;
import javafx.collections.MapChangeListener;
import javafx.geometry.Insets;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.config.DeviceSelection;

/**
 * The device selector, a view of {@link DevicesViewModel}: every GPU the inventory found with its live figures, the
 * CPU with its data-parallel workers, and a cluster (its master's address and executors); ticking a box chooses,
 * and the boxes follow the config's "devices" and "parallel.cluster".
 */
public final class DeviceSelector extends VBox {

    private final DevicesViewModel model;
    private final Map<Integer, CheckBox> gpuBoxes = new LinkedHashMap<>();
    private final Map<String, Label> live = new LinkedHashMap<>();
    private final CheckBox cpuBox = new CheckBox();
    private final Spinner<Integer> cpuWorkers = new Spinner<>(1, 64, 1);
    private final CheckBox clusterBox =
            new CheckBox("Spark cluster · the same training as one device at the global batch");
    private final VBox clusterPane;
    private boolean showing;

    public DeviceSelector(DevicesViewModel model) {
        super(6);
        this.model = model;
        setId("device-selector");
        setPadding(new Insets(8));
        Label status = new Label();
        status.setId("device-status");
        status.setWrapText(true);
        status.textProperty().bind(model.statusProperty());
        cpuBox.setId("device-cpu");
        cpuWorkers.setId("cpu-workers");
        cpuWorkers.setEditable(true);
        cpuWorkers.setPrefWidth(70);
        clusterPane = cluster();
        getChildren().addAll(status, clusterPane);
        model.inventoryProperty().addListener((o, a, inventory) -> build(inventory));
        model.selectionProperty().addListener((o, a, b) -> showSelection(b));
        model.cpuWorkersProperty()
                .addListener((o, a, b) -> cpuWorkers.getValueFactory().setValue(b.intValue()));
        cpuWorkers.valueProperty().addListener((o, a, b) -> {
            if (b != null) {
                model.cpuWorkersProperty().set(b);
            }
        });
        cpuBox.selectedProperty().addListener((o, a, chosen) -> {
            if (!showing && chosen) {
                model.chooseCpu();
            } else if (!showing) {
                showSelection(model.selectionProperty().get()); // the CPU goes only by choosing a GPU
            }
        });
        model.figures().addListener((MapChangeListener<String, String>) c -> {
            Label l = live.get(c.getKey());
            if (l != null && c.wasAdded()) {
                l.setText(c.getValueAdded());
            }
        });
        // the window builds this view when its tab is first shown, by when the devices may be known
        cpuWorkers
                .getValueFactory()
                .setValue(Math.max(1, model.cpuWorkersProperty().get()));
        if (model.inventoryProperty().get() != null) {
            build(model.inventoryProperty().get());
        }
    }

    private VBox cluster() {
        clusterBox.setId("device-cluster");
        // without the module the cluster cannot be chosen; a config that already names one can still be unticked
        clusterBox
                .disableProperty()
                .bind(model.clusterUnavailableProperty()
                        .and(clusterBox.selectedProperty().not()));
        TextField address = new TextField(model.clusterAddressProperty().get());
        address.setId("cluster-address");
        address.setPromptText("spark://HOST:7077");
        address.setPrefColumnCount(24);
        address.textProperty().bindBidirectional(model.clusterAddressProperty());
        Spinner<Integer> executors =
                new Spinner<>(1, 256, Math.max(1, model.executorsProperty().get()));
        executors.setId("cluster-executors");
        executors.setEditable(true);
        executors.setPrefWidth(70);
        model.executorsProperty()
                .addListener((o, a, b) -> executors.getValueFactory().setValue(Math.max(1, b.intValue())));
        executors.valueProperty().addListener((o, a, b) -> {
            if (b != null) {
                model.executorsProperty().set(b);
            }
        });
        clusterBox.selectedProperty().addListener((o, a, chosen) -> {
            if (!showing) {
                model.clusterChosenProperty().set(chosen);
            }
        });
        model.clusterChosenProperty()
                .addListener(
                        (o, a, b) -> showSelection(model.selectionProperty().get()));
        Label note = new Label();
        note.setId("cluster-note");
        note.setWrapText(true);
        note.textProperty().bind(model.clusterNoteProperty());
        return new VBox(3, clusterBox, new HBox(6, whole("master"), address, whole("executors"), executors), note);
    }

    private void build(DeviceInventory inventory) {
        getChildren().remove(1, getChildren().size());
        gpuBoxes.clear();
        live.clear();
        for (GpuInfo g : inventory.gpus()) {
            CheckBox box = new CheckBox(g.id() + " · " + (g.name() == null ? "GPU" : g.name()));
            box.setId("device-" + g.id());
            box.selectedProperty().addListener((o, a, chosen) -> {
                if (!showing) {
                    model.chooseGpu(g.index(), chosen);
                }
            });
            gpuBoxes.put(g.index(), box);
            getChildren().add(new VBox(1, box, figures(g.id())));
        }
        var h = inventory.host();
        cpuBox.setText(
                "CPU · " + h.cpuModel() + " (" + h.physicalCores() + " cores, " + h.logicalCores() + " threads)");
        getChildren().add(new VBox(1, cpuBox, figures("cpu"), new HBox(6, whole("data-parallel workers"), cpuWorkers)));
        inventory.notes().forEach(n -> getChildren().add(note(n)));
        getChildren().add(clusterPane);
        showSelection(model.selectionProperty().get());
    }

    /** A note can be a long sentence (what CUDA_VISIBLE_DEVICES leaves a run): it wraps rather than being cut off. */
    private static Label note(String text) {
        Label l = new Label("note: " + text);
        l.setWrapText(true);
        l.setMinHeight(Region.USE_PREF_SIZE);
        l.getStyleClass().add("device-note");
        return l;
    }

    private Label figures(String device) {
        Label l = new Label(model.figures().getOrDefault(device, ""));
        l.setId("live-" + device);
        l.getStyleClass().add("device-figures");
        live.put(device, l);
        return l;
    }

    private void showSelection(DeviceSelection s) {
        if (s == null) {
            return;
        }
        showing = true;
        try {
            boolean cluster = model.clusterChosenProperty().get();
            clusterBox.setSelected(cluster);
            if (cluster) {
                // this machine only drives: the executors train
                cpuBox.setSelected(false);
                gpuBoxes.values().forEach(b -> b.setSelected(false));
                return;
            }
            switch (s.kind()) {
                case CPU -> {
                    cpuBox.setSelected(true);
                    gpuBoxes.values().forEach(b -> b.setSelected(false));
                }
                case ALL_GPUS -> {
                    gpuBoxes.values().forEach(b -> b.setSelected(true));
                    cpuBox.setSelected(gpuBoxes.isEmpty());
                }
                case GPU_LIST -> {
                    gpuBoxes.forEach((i, b) -> b.setSelected(s.gpuIndices().contains(i)));
                    cpuBox.setSelected(false);
                }
            }
        } finally {
            showing = false;
        }
    }

    /** A label that its row never cuts to "…" (the field beside it gives up width first). */
    private static Label whole(String text) {
        Label l = new Label(text);
        l.setMinWidth(Region.USE_PREF_SIZE);
        return l;
    }
}
