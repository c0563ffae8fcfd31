package org.traindeck.engine.devices;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;

/**
 * Turns a config's {@code devices} into the devices a run will use. GPU indices are nvidia-smi's (as
 * {@code traindeck devices} shows them). When CUDA_VISIBLE_DEVICES is set, only the GPUs it lists (by index or UUID)
 * may be used, as CUDA itself would allow.
 */
public final class DeviceResolver {

    /**
     * The chosen GPUs (empty: the CPU, with {@code cpuWorkers} workers) and what the user should know about the choice.
     */
    public record Resolved(List<GpuInfo> gpus, int cpuWorkers, List<String> warnings, List<Integer> cudaOrdinals) {
        public Resolved {
            gpus = List.copyOf(gpus);
            warnings = List.copyOf(warnings);
            cudaOrdinals = List.copyOf(cudaOrdinals);
            if (cudaOrdinals.size() != gpus.size()) {
                throw new IllegalArgumentException("one CUDA ordinal per GPU");
            }
        }

        /** The CPU with {@code cpuWorkers} workers. */
        public static Resolved cpu(int cpuWorkers, List<String> warnings) {
            return new Resolved(List.of(), cpuWorkers, warnings, List.of());
        }

        public boolean isCpu() {
            return gpus.isEmpty();
        }

        /** How many data-parallel workers: GPUs, or CPU workers. */
        public int workers() {
            return isCpu() ? cpuWorkers : gpus.size();
        }

        /** "cpu", "cpu0".."cpuN-1" for several CPU workers, or "gpu0", "gpu2", ... */
        public List<String> deviceIds() {
            if (!isCpu()) {
                return gpus.stream().map(GpuInfo::id).toList();
            }
            if (cpuWorkers == 1) {
                return List.of("cpu");
            }
            return IntStream.range(0, cpuWorkers).mapToObj(i -> "cpu" + i).toList();
        }
    }

    private DeviceResolver() {}

    public static Resolved resolve(DeviceSelection selection, DeviceInventory inventory, String cudaVisibleDevices) {
        if (selection.kind() == DeviceSelection.Kind.CPU) {
            return Resolved.cpu(selection.cpuWorkers(), List.of());
        }
        List<GpuInfo> visible = visible(inventory.gpus(), cudaVisibleDevices);
        String hiddenNote = cudaVisibleDevices == null ? "" : " (CUDA_VISIBLE_DEVICES=" + cudaVisibleDevices + ")";
        if (selection.kind() == DeviceSelection.Kind.ALL_GPUS) {
            if (visible.isEmpty()) {
                String why = inventory.hasGpus() ? "every GPU is hidden" + hiddenNote : inventory.noGpuReason();
                return Resolved.cpu(1, List.of("devices \"all\": no GPU to use, training on the CPU (" + why + ")"));
            }
            return new Resolved(visible, 1, List.of(), ordinals(visible, visible));
        }
        if (!inventory.hasGpus()) {
            throw new InvalidConfigException(
                    "devices",
                    "asks for GPU " + selection.gpuIndices() + ", but no GPU was found: " + inventory.noGpuReason()
                            + ". Use \"cpu\" (or \"all\", which falls back to the CPU)");
        }
        List<GpuInfo> chosen = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (int index : selection.gpuIndices()) {
            GpuInfo gpu = inventory.gpus().stream()
                    .filter(g -> g.index() == index)
                    .findFirst()
                    .orElse(null);
            if (gpu == null) {
                problems.add("there is no GPU " + index + " (this machine has GPU "
                        + inventory.gpus().stream()
                                .map(g -> String.valueOf(g.index()))
                                .collect(Collectors.joining(", "))
                        + ")");
            } else if (!visible.contains(gpu)) {
                problems.add("GPU " + index + " is hidden by CUDA_VISIBLE_DEVICES=" + cudaVisibleDevices);
            } else {
                chosen.add(gpu);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidConfigException("devices", String.join("; ", problems));
        }
        return new Resolved(chosen, 1, List.of(), ordinals(chosen, visible));
    }

    /**
     * The CUDA device ordinal of each chosen GPU: its position among the GPUs CUDA enumerates, which are the visible
     * ones in CUDA_VISIBLE_DEVICES's order, or else in PCI bus order (nvidia-smi's numbering) when CUDA_DEVICE_ORDER
     * is PCI_BUS_ID, as TrainDeck sets it before ND4J loads.
     */
    static List<Integer> ordinals(List<GpuInfo> chosen, List<GpuInfo> visible) {
        return chosen.stream().map(visible::indexOf).toList();
    }

    /**
     * What CUDA_VISIBLE_DEVICES leaves a run, said where the GPUs are listed (null when it is unset or there is no GPU):
     * CUDA shows only the GPUs it lists, and none from its first entry that names no GPU on.
     */
    public static String visibilityNote(List<GpuInfo> gpus, String cudaVisibleDevices) {
        if (cudaVisibleDevices == null || gpus.isEmpty()) {
            return null;
        }
        String said = "CUDA_VISIBLE_DEVICES=" + cudaVisibleDevices;
        List<GpuInfo> visible = visible(gpus, cudaVisibleDevices);
        String unmatched = firstUnmatchedEntry(gpus, cudaVisibleDevices);
        String because = unmatched == null
                ? ""
                : " (its entry \"" + unmatched + "\" names no GPU here, so CUDA ignores it and every entry after it)";
        if (visible.isEmpty()) {
            return said + " shows runs none of this machine's GPUs (" + ids(gpus) + ")" + because
                    + ": a run that asks for a GPU is refused, and \"all\" trains on the CPU";
        }
        return said + ": runs may use only " + ids(visible) + because;
    }

    private static String firstUnmatchedEntry(List<GpuInfo> gpus, String cudaVisibleDevices) {
        for (String entry : cudaVisibleDevices.split(",", -1)) {
            if (visible(gpus, entry).isEmpty()) {
                return entry.strip();
            }
        }
        return null;
    }

    private static String ids(List<GpuInfo> gpus) {
        return String.join(", ", gpus.stream().map(GpuInfo::id).toList());
    }

    /** The GPUs CUDA would show: all, or those CUDA_VISIBLE_DEVICES lists up to its first entry that matches none. */
    static List<GpuInfo> visible(List<GpuInfo> gpus, String cudaVisibleDevices) {
        if (cudaVisibleDevices == null) {
            return gpus.stream().sorted(Comparator.comparingInt(GpuInfo::index)).toList();
        }
        List<GpuInfo> out = new ArrayList<>();
        for (String entry : cudaVisibleDevices.split(",")) {
            String e = entry.strip();
            GpuInfo match = null;
            if (e.matches("\\d+")) {
                int index = Integer.parseInt(e);
                match = gpus.stream()
                        .filter(g -> g.index() == index)
                        .findFirst()
                        .orElse(null);
            } else if (!e.isEmpty()) {
                match = gpus.stream()
                        .filter(g -> g.uuid() != null && g.uuid().startsWith(e))
                        .findFirst()
                        .orElse(null);
            }
            if (match == null) {
                break;
            }
            if (!out.contains(match)) {
                out.add(match);
            }
        }
        return out;
    }
}
