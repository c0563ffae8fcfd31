package org.traindeck.engine.devices;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.events.GpuProcess;

/**
 * Parses nvidia-smi's {@code --format=csv} output. Columns are found by the names in the header line (so a changed
 * column order does not matter), units may be present or absent, blank lines are skipped, and a value that cannot
 * be read ({@code [N/A]}, {@code [Not Supported]}, garbage) becomes null rather than a crash or a zero. Free-text
 * fields (a GPU's or a process's name) may contain commas: extra cells are joined back into them.
 */
public final class NvidiaSmiParser {

    /** The GPU fields TrainDeck asks for, by name. */
    public static final List<String> GPU_FIELDS = List.of(
            "index",
            "uuid",
            "name",
            "pci.bus_id",
            "memory.total",
            "memory.used",
            "utilization.gpu",
            "temperature.gpu",
            "power.draw");

    /** The compute-app fields TrainDeck asks for, by name. */
    public static final List<String> APP_FIELDS = List.of("pid", "process_name", "used_memory", "gpu_uuid");

    /** No machine has more GPUs than this; a larger index is garbage. */
    static final long MAX_GPU_INDEX = 1023;
    /** 16 TiB of memory on one GPU: anything above is garbage. */
    static final long MAX_MEMORY_MIB = 16L << 20;

    private static final Pattern NUMBER = Pattern.compile("^[-+]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?");

    private NvidiaSmiParser() {}

    /**
     * Header names the driver prints for a field TrainDeck asks for by another name: asked for used_memory, drivers
     * (580 on an H200, for one) head the column "used_gpu_memory [MiB]".
     */
    private static final Map<String, String> HEADER_ALIASES = Map.of("used_gpu_memory", "used_memory");

    /** A header line maps field names (units and spaces stripped, lower case) to column positions. */
    public static final class Header {
        private final Map<String, Integer> columns = new HashMap<>();
        private final int size;

        Header(String line) {
            String[] cells = line.split(",");
            for (int i = 0; i < cells.length; i++) {
                columns.put(fieldName(cells[i]), i);
            }
            size = cells.length;
        }

        static String fieldName(String headerCell) {
            String name = headerCell.trim();
            int unit = name.indexOf(" [");
            if (unit >= 0) {
                name = name.substring(0, unit);
            }
            name = name.trim().toLowerCase(Locale.ROOT);
            return HEADER_ALIASES.getOrDefault(name, name);
        }

        Integer column(String field) {
            return columns.get(field);
        }

        int size() {
            return size;
        }

        boolean has(String field) {
            return columns.containsKey(field);
        }
    }

    /** Whether a line is a header (names a field we know) rather than data. */
    public static boolean isHeader(String line, List<String> fields) {
        Header h = new Header(line);
        return fields.stream().filter(h::has).count() >= Math.min(2, fields.size());
    }

    public static List<GpuInfo> parseGpus(String output) {
        List<GpuInfo> gpus = new ArrayList<>();
        Header header = null;
        for (String line : lines(output)) {
            if (isHeader(line, GPU_FIELDS)) {
                header = new Header(line);
                continue;
            }
            if (header == null) {
                continue;
            }
            GpuInfo gpu = parseGpuRow(header, line);
            // the same GPU listed twice (a driver glitch, or a hostile tool on PATH) is one GPU
            if (gpu != null && gpus.stream().noneMatch(g -> g.index() == gpu.index())) {
                gpus.add(gpu);
            }
        }
        return gpus;
    }

    /** One data row under {@code header}; null when the row has no readable index. */
    public static GpuInfo parseGpuRow(Header header, String line) {
        String[] cells = cells(header, line, "name");
        Long index = within(integer(cell(header, cells, "index")), 0, MAX_GPU_INDEX);
        if (index == null) {
            return null;
        }
        Long total = within(integer(cell(header, cells, "memory.total")), 0, MAX_MEMORY_MIB);
        Long used = within(integer(cell(header, cells, "memory.used")), 0, total == null ? MAX_MEMORY_MIB : total);
        return new GpuInfo(
                index.intValue(),
                text(cell(header, cells, "uuid")),
                text(cell(header, cells, "name")),
                text(cell(header, cells, "pci.bus_id")),
                total,
                used,
                within(decimal(cell(header, cells, "utilization.gpu")), 0, 100),
                within(decimal(cell(header, cells, "temperature.gpu")), -60, 200),
                within(decimal(cell(header, cells, "power.draw")), 0, 10_000));
    }

    public static List<GpuProcess> parseComputeApps(String output) {
        List<GpuProcess> apps = new ArrayList<>();
        Header header = null;
        for (String line : lines(output)) {
            if (isHeader(line, APP_FIELDS)) {
                header = new Header(line);
                continue;
            }
            if (header == null || line.toLowerCase(Locale.ROOT).startsWith("no running")) {
                continue;
            }
            String[] cells = cells(header, line, "process_name");
            Long pid = integer(cell(header, cells, "pid"));
            String uuid = text(cell(header, cells, "gpu_uuid"));
            if (pid == null && uuid == null) {
                continue;
            }
            apps.add(new GpuProcess(
                    pid, text(cell(header, cells, "process_name")), integer(cell(header, cells, "used_memory")), uuid));
        }
        return apps;
    }

    private static List<String> lines(String output) {
        List<String> out = new ArrayList<>();
        for (String line : output.split("\\R")) {
            String t = line.strip();
            if (!t.isEmpty()) {
                out.add(t);
            }
        }
        return out;
    }

    /** Splits a row; when it has more cells than the header, the surplus belongs to {@code freeText}. */
    private static String[] cells(Header header, String line, String freeText) {
        String[] raw = line.split(",", -1);
        Integer free = header.column(freeText);
        if (raw.length <= header.size() || free == null) {
            return raw;
        }
        int extra = raw.length - header.size();
        String[] out = new String[header.size()];
        for (int i = 0, j = 0; i < out.length; i++) {
            if (i == free) {
                StringBuilder b = new StringBuilder(raw[j++]);
                for (int k = 0; k < extra; k++) {
                    b.append(',').append(raw[j++]);
                }
                out[i] = b.toString();
            } else {
                out[i] = raw[j++];
            }
        }
        return out;
    }

    private static String cell(Header header, String[] cells, String field) {
        Integer i = header.column(field);
        return i == null || i >= cells.length ? null : cells[i].trim();
    }

    static boolean unavailable(String value) {
        return value == null || value.isEmpty() || value.startsWith("[") || value.equalsIgnoreCase("N/A");
    }

    static String text(String value) {
        return unavailable(value) ? null : value;
    }

    /** A number with or without a unit ("1024 MiB", "35.5 W", "45"). */
    static Double decimal(String value) {
        if (unavailable(value)) {
            return null;
        }
        Matcher m = NUMBER.matcher(value.trim());
        if (!m.find()) {
            return null;
        }
        try {
            double d = Double.parseDouble(m.group());
            return Double.isFinite(d) ? d : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** An impossible value (a negative size, 300 % load) is unreadable, never a number to show or compute with. */
    static Long within(Long value, long min, long max) {
        return value == null || value < min || value > max ? null : value;
    }

    static Double within(Double value, double min, double max) {
        return value == null || value < min || value > max ? null : value;
    }

    static Long integer(String value) {
        Double d = decimal(value);
        return d == null ? null : Math.round(d);
    }
}
