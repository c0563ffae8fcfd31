package org.traindeck.app.devices;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.ObservableMap;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.config.DocumentEdits;
import org.traindeck.app.config.JsonTree;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.events.TelemetryEvent;

/**
 * The Devices view's state: the inventory, the selection (GPUs, or the CPU with a number of data-parallel workers)
 * kept equal to the config's "devices" both ways, or a cluster (the config's "parallel.cluster" and
 * "parallel.executors"), and each device's live figures from the telemetry.
 */
public final class DevicesViewModel {

    /** What the schema's "parallel.cluster" takes, less the empty string. */
    private static final Pattern ADDRESS = Pattern.compile("[a-z][a-z0-9+.-]*://[^\\s/]+:[0-9]{1,5}");

    private final ConfigDocument document;
    private final ReadOnlyObjectWrapper<DeviceInventory> inventory = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("looking for devices…");
    private final ObjectProperty<DeviceSelection> selection = new SimpleObjectProperty<>(DeviceSelection.CPU);
    private final IntegerProperty cpuWorkers = new SimpleIntegerProperty(1);
    private final DeviceFigures figures = new DeviceFigures();
    private final BooleanProperty clusterChosen = new SimpleBooleanProperty(false);
    private final StringProperty clusterAddress = new SimpleStringProperty("");
    private final IntegerProperty executors = new SimpleIntegerProperty(2);
    private final ReadOnlyStringWrapper clusterNote = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper clusterUnavailable = new ReadOnlyBooleanWrapper(false);
    /** Null until known: whether this app's class path has the cluster module. */
    private Boolean clusterModule;

    private boolean following;

    public DevicesViewModel(ConfigDocument document) {
        this.document = document;
        document.textProperty().addListener((o, a, b) -> follow());
        selection.addListener((o, a, b) -> {
            if (!following && b != null) {
                write(b);
            }
        });
        cpuWorkers.addListener((o, a, b) -> {
            if (!following && selection.get() != null && selection.get().kind() == DeviceSelection.Kind.CPU) {
                selection.set(DeviceSelection.cpuWorkers(Math.max(1, b.intValue())));
            }
        });
        clusterChosen.addListener((o, a, b) -> writeCluster());
        clusterAddress.addListener((o, a, b) -> writeCluster());
        executors.addListener((o, a, b) -> writeCluster());
    }

    /** Training on a cluster instead of this machine's devices; choosing a device drops it. */
    public BooleanProperty clusterChosenProperty() {
        return clusterChosen;
    }

    /** The cluster's master ("spark://HOST:7077"). */
    public StringProperty clusterAddressProperty() {
        return clusterAddress;
    }

    /** How many executors every step uses. */
    public IntegerProperty executorsProperty() {
        return executors;
    }

    /** What stands in the way of the cluster choice ("" when nothing): no cluster module, an address to enter. */
    public ReadOnlyStringProperty clusterNoteProperty() {
        return clusterNote.getReadOnlyProperty();
    }

    /** Whether the cluster module is on this app's class path (FX thread; found off it by {@code Engine.clusterModulePresent}). */
    public void showClusterModule(boolean present) {
        clusterModule = present;
        clusterUnavailable.set(!present);
        updateClusterNote();
    }

    /** True once it is known that this app has no cluster module: the cluster cannot be chosen (the note says why). */
    public ReadOnlyBooleanProperty clusterUnavailableProperty() {
        return clusterUnavailable.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<DeviceInventory> inventoryProperty() {
        return inventory.getReadOnlyProperty();
    }

    /** "2 GPU(s) found", or why there is none. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** The devices chosen; setting it writes the config's "devices". */
    public ObjectProperty<DeviceSelection> selectionProperty() {
        return selection;
    }

    /** Data-parallel CPU workers, when the CPU is chosen. */
    public IntegerProperty cpuWorkersProperty() {
        return cpuWorkers;
    }

    /** Each device's live figures ("cpu", "gpu0", ...), as text. */
    public ObservableMap<String, String> figures() {
        return figures.shown();
    }

    /** The inventory, once known (FX thread). */
    public void show(DeviceInventory found) {
        figures.show(found);
        status.set(found.hasGpus() ? found.gpus().size() + " GPU(s) found" : found.noGpuStatus());
        inventory.set(found);
        follow();
    }

    /** Chooses or drops one GPU; none left means the CPU. */
    public void chooseGpu(int index, boolean chosen) {
        DeviceSelection now = selection.get();
        List<Integer> gpus = now != null && now.kind() == DeviceSelection.Kind.GPU_LIST
                ? new ArrayList<>(now.gpuIndices())
                : now != null && now.kind() == DeviceSelection.Kind.ALL_GPUS && inventory.get() != null
                        ? new ArrayList<>(inventory.get().gpus().stream()
                                .map(GpuInfo::index)
                                .toList())
                        : new ArrayList<>();
        gpus.remove(Integer.valueOf(index));
        if (chosen) {
            gpus.add(index);
            gpus.sort(null);
        }
        clusterChosen.set(false);
        selection.set(
                gpus.isEmpty()
                        ? DeviceSelection.cpuWorkers(Math.max(1, cpuWorkers.get()))
                        : DeviceSelection.gpus(List.copyOf(gpus)));
    }

    /** Chooses the CPU (with the workers set). */
    public void chooseCpu() {
        clusterChosen.set(false);
        selection.set(DeviceSelection.cpuWorkers(Math.max(1, cpuWorkers.get())));
    }

    /** A telemetry figure (any thread); shown at the next {@link #refresh()}. */
    public void accept(TelemetryEvent t) {
        figures.accept(t);
    }

    /** Turns the latest telemetry into the figures shown (FX thread). */
    public void refresh() {
        figures.refresh();
    }

    private void write(DeviceSelection s) {
        JsonNode value;
        if (s.kind() == DeviceSelection.Kind.GPU_LIST) {
            ArrayNode a = JsonNodeFactory.instance.arrayNode();
            s.gpuIndices().forEach(a::add);
            value = a;
        } else {
            value = JsonNodeFactory.instance.textNode(
                    s.kind() == DeviceSelection.Kind.ALL_GPUS
                            ? "all"
                            : s.cpuWorkers() > 1 ? "cpu:" + s.cpuWorkers() : "cpu");
        }
        following = true;
        try {
            DocumentEdits.set(document, "devices", value);
        } finally {
            following = false;
        }
    }

    /**
     * The cluster choice into "parallel.cluster" and "parallel.executors": an address that is not one yet (being
     * typed) leaves the config as it is; dropping the choice removes the address.
     */
    private void writeCluster() {
        updateClusterNote();
        if (following) {
            return;
        }
        String address =
                clusterAddress.get() == null ? "" : clusterAddress.get().strip();
        if (clusterChosen.get() && !ADDRESS.matcher(address).matches()) {
            return;
        }
        following = true;
        try {
            if (clusterChosen.get()) {
                DocumentEdits.set(document, "parallel.cluster", JsonNodeFactory.instance.textNode(address));
                DocumentEdits.set(
                        document,
                        "parallel.executors",
                        JsonNodeFactory.instance.numberNode(Math.max(1, executors.get())));
            } else {
                DocumentEdits.set(document, "parallel.cluster", null);
            }
        } finally {
            following = false;
        }
    }

    private void updateClusterNote() {
        String address =
                clusterAddress.get() == null ? "" : clusterAddress.get().strip();
        if (Boolean.FALSE.equals(clusterModule)) {
            clusterNote.set(
                    "This app was started without TrainDeck's cluster module, so it cannot train on a cluster: a run of this"
                            + " config here fails at its start. Train it with ./traindeck train CONFIG, which adds the module,"
                            + " or install the package built with packaging/build-linux.sh --with-cluster.");
        } else if (clusterChosen.get() && !ADDRESS.matcher(address).matches()) {
            clusterNote.set("Enter the master's address, as spark://HOST:7077 (traindeck cluster master prints it).");
        } else {
            clusterNote.set("");
        }
    }

    /** The config's "devices" as the selection (when the JSON changes, by hand or otherwise). */
    private void follow() {
        if (following) {
            return;
        }
        var tree = JsonTree.parse(document.text());
        if (tree == null) {
            return;
        }
        JsonNode cluster = JsonTree.get(tree, "parallel.cluster");
        JsonNode n = JsonTree.get(tree, "parallel.executors");
        following = true;
        try {
            boolean on = cluster != null && !cluster.asText().isBlank();
            if (on) {
                clusterAddress.set(cluster.asText());
            }
            clusterChosen.set(on);
            if (n != null && n.canConvertToInt()) {
                executors.set(n.asInt());
            }
        } finally {
            following = false;
        }
        updateClusterNote();
        JsonNode d = JsonTree.get(tree, "devices");
        DeviceSelection sel = d == null
                ? DeviceSelection.CPU
                : d.isArray()
                        ? DeviceSelection.parse(JsonTree.toText(d).replace(" ", ""))
                        : DeviceSelection.parse(d.asText());
        if (sel == null) {
            return;
        }
        following = true;
        try {
            selection.set(sel);
            if (sel.kind() == DeviceSelection.Kind.CPU) {
                cpuWorkers.set(sel.cpuWorkers());
            }
        } finally {
            following = false;
        }
    }
}
