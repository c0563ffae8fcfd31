package org.traindeck.engine.devices;

import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Turns a config's {@code devices} into the devices a run will use. GPU indices are nvidia-smi's (as
 * {@code traindeck devices} shows them). When CUDA_VISIBLE_DEVICES is set, only the GPUs it lists (by index or UUID)
 * may be used, as CUDA itself would allow.
 */
public final class DeviceResolver {

    /**
     * The chosen GPUs (empty: the CPU, with {@code cpuWorkers} workers) and what the user should know about the choice.
     */
    public record Resolved(List<GpuInfo> gpus, int cpuWorkers, List<String> warnings) {
        public Resolved {
            gpus = List.copyOf(gpus);
            warnings = List.copyOf(warnings);
        }

        public Resolved(List<GpuInfo> gpus, List<String> warnings) {
            this(gpus, 1, warnings);
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
            return java.util.stream.IntStream.range(0, cpuWorkers).mapToObj(i -> "cpu" + i).toList();
        }
    }

    private DeviceResolver() {
    }

    public static Resolved resolve(DeviceSelection selection, DeviceInventory inventory, String cudaVisibleDevices) {
        if (selection.kind() == DeviceSelection.Kind.CPU) {
            return new Resolved(List.of(), selection.cpuWorkers(), List.of());
        }
        List<GpuInfo> visible = visible(inventory.gpus(), cudaVisibleDevices);
        String hiddenNote = cudaVisibleDevices == null ? "" : " (CUDA_VISIBLE_DEVICES=" + cudaVisibleDevices + ")";
        if (selection.kind() == DeviceSelection.Kind.ALL_GPUS) {
            if (visible.isEmpty()) {
                String why = inventory.hasGpus() ? "every GPU is hidden" + hiddenNote : inventory.noGpuReason();
                return new Resolved(List.of(), List.of("devices \"all\": no GPU to use, training on the CPU (" + why + ")"));
            }
            return new Resolved(visible, List.of());
        }
        if (!inventory.hasGpus()) {
            throw new InvalidConfigException("devices", "asks for GPU " + selection.gpuIndices() + ", but no GPU was found: "
                    + inventory.noGpuReason() + ". Use \"cpu\" (or \"all\", which falls back to the CPU)");
        }
        List<GpuInfo> chosen = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (int index : selection.gpuIndices()) {
            GpuInfo gpu = inventory.gpus().stream().filter(g -> g.index() == index).findFirst().orElse(null);
            if (gpu == null) {
                problems.add("there is no GPU " + index + " (this machine has GPU "
                        + inventory.gpus().stream().map(g -> String.valueOf(g.index())).collect(Collectors.joining(", ")) + ")");
            } else if (!visible.contains(gpu)) {
                problems.add("GPU " + index + " is hidden by CUDA_VISIBLE_DEVICES=" + cudaVisibleDevices);
            } else {
                chosen.add(gpu);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidConfigException("devices", String.join("; ", problems));
        }
        return new Resolved(chosen, List.of());
    }

    /** The GPUs CUDA would show: all, or those CUDA_VISIBLE_DEVICES lists up to its first entry that matches none. */
    static List<GpuInfo> visible(List<GpuInfo> gpus, String cudaVisibleDevices) {
        if (cudaVisibleDevices == null) {
            return gpus;
        }
        List<GpuInfo> out = new ArrayList<>();
        for (String entry : cudaVisibleDevices.split(",")) {
            String e = entry.strip();
            GpuInfo match = null;
            if (e.matches("\\d+")) {
                int index = Integer.parseInt(e);
                match = gpus.stream().filter(g -> g.index() == index).findFirst().orElse(null);
            } else if (!e.isEmpty()) {
                match = gpus.stream().filter(g -> g.uuid() != null && g.uuid().startsWith(e)).findFirst().orElse(null);
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
