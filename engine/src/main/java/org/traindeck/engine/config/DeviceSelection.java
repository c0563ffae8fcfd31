package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;

/**
 * Which devices a run asks for: the CPU (with {@code cpuWorkers} data-parallel workers, "cpu:2"), every GPU, or GPUs
 * by index.
 */
public record DeviceSelection(Kind kind, List<Integer> gpuIndices, int cpuWorkers) {

    public enum Kind {
        CPU,
        ALL_GPUS,
        GPU_LIST
    }

    public static final DeviceSelection CPU = new DeviceSelection(Kind.CPU, List.of(), 1);
    public static final DeviceSelection ALL = new DeviceSelection(Kind.ALL_GPUS, List.of(), 1);

    public DeviceSelection {
        gpuIndices = List.copyOf(gpuIndices);
    }

    public static DeviceSelection gpus(List<Integer> indices) {
        return new DeviceSelection(Kind.GPU_LIST, indices, 1);
    }

    public static DeviceSelection cpuWorkers(int workers) {
        return new DeviceSelection(Kind.CPU, List.of(), workers);
    }

    /**
     * Parses the command-line form: "cpu", "cpu:2", "all" or GPU indices "0,1". Null when it is none of them.
     */
    public static DeviceSelection parse(String text) {
        String t = text.strip();
        if (t.equals("cpu")) {
            return CPU;
        }
        if (t.equals("all")) {
            return ALL;
        }
        if (t.matches("cpu:\\d{1,2}")) {
            int n = Integer.parseInt(t.substring(4));
            return n >= 1 && n <= 64 ? cpuWorkers(n) : null;
        }
        if (t.matches("\\d{1,4}(,\\d{1,4})*")) {
            List<Integer> indices =
                    Arrays.stream(t.split(",")).map(Integer::parseInt).toList();
            return new HashSet<>(indices).size() == indices.size() ? gpus(indices) : null;
        }
        return null;
    }

    /** As a config writes it: "cpu", "cpu:2", "all", or the list of GPU indices. */
    @JsonValue
    Object json() {
        return kind == Kind.GPU_LIST ? gpuIndices : toString();
    }

    /** As a person says it: "the CPU", "2 CPU workers", "all GPUs", "GPU 1", "GPUs 0, 1". */
    public String describe() {
        return switch (kind) {
            case CPU -> cpuWorkers == 1 ? "the CPU" : cpuWorkers + " CPU workers";
            case ALL_GPUS -> "all GPUs";
            case GPU_LIST ->
                (gpuIndices.size() == 1 ? "GPU " : "GPUs ")
                        + String.join(
                                ", ", gpuIndices.stream().map(String::valueOf).toList());
        };
    }

    /** Whether this can mean more than one device: GPU lists of 2+, "all", or several CPU workers. */
    public boolean maybeSeveral() {
        return switch (kind) {
            case CPU -> cpuWorkers > 1;
            case ALL_GPUS -> true;
            case GPU_LIST -> gpuIndices.size() > 1;
        };
    }

    @Override
    public String toString() {
        return switch (kind) {
            case CPU -> cpuWorkers > 1 ? "cpu:" + cpuWorkers : "cpu";
            case ALL_GPUS -> "all";
            case GPU_LIST -> gpuIndices.toString();
        };
    }
}
