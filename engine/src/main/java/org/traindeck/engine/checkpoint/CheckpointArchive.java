package org.traindeck.engine.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Opening a checkpoint archive that may be damaged or hostile: only the known entry names, and no entry inflated past
 * the size the manifest's own counts allow (a zip bomb is refused before it inflates).
 */
final class CheckpointArchive {

    /** The weight average's entry: optional, so checkpoints written before it existed (and without one) still load. */
    static final String EMA = "ema.bin";

    static final Set<String> ENTRIES = Set.of("manifest.json", "config.json", "params.bin", "updater.bin", EMA);
    static final List<String> DATA_ENTRIES = List.of("config.json", "params.bin", "updater.bin");
    static final long MAX_MANIFEST_BYTES = 1 << 20;
    private static final long MAX_ARRAY_BYTES = 8L << 30;
    private static final long MAX_CONFIG_BYTES = 1 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private CheckpointArchive() {}

    /**
     * The sizes the entries may have, from the manifest's parameter counts (not from what the archive claims), checked
     * against an absolute cap and against the memory this Java may use, before anything is inflated.
     */
    static Map<String, Long> declaredSizes(Path file, ZipFile zip, Checkpoint c)
            throws IOException, CheckpointException {
        JsonNode declared = JSON.readTree(entry(zip, file, "manifest.json", MAX_MANIFEST_BYTES))
                .get("entries");
        if (c.parameterCount() < 0
                || c.updaterStateCount() < 0
                || c.parameterCount() > MAX_ARRAY_BYTES / 4
                || c.updaterStateCount() > MAX_ARRAY_BYTES / 4) {
            throw new CheckpointException(file + ": implausible array sizes in the manifest (" + c.parameterCount()
                    + " parameters, " + c.updaterStateCount() + " optimizer values)");
        }
        Map<String, Long> expected = Map.of(
                "config.json",
                -1L,
                "params.bin",
                4 * c.parameterCount(),
                "updater.bin",
                4 * c.updaterStateCount(),
                EMA,
                4 * c.parameterCount());
        Map<String, Long> sizes = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(DATA_ENTRIES);
        if ((declared != null && declared.has(EMA)) || zip.getEntry(EMA) != null) {
            names.add(EMA);
        }
        for (String name : names) {
            JsonNode d = declared == null ? null : declared.get(name);
            if (d == null || !d.has("size") || !d.has("sha256")) {
                throw new CheckpointException(file + ": the manifest does not describe " + name);
            }
            long size = d.get("size").asLong();
            long allowed = expected.get(name) >= 0 ? expected.get(name) : MAX_CONFIG_BYTES;
            if (size < 0 || (expected.get(name) >= 0 ? size != allowed : size > allowed)) {
                throw new CheckpointException(
                        file + ": " + name + " is said to hold " + size + " bytes, but the manifest's counts allow "
                                + (expected.get(name) >= 0 ? "exactly " : "at most ") + allowed);
            }
            ZipEntry e = zip.getEntry(name);
            if (e == null) {
                throw new CheckpointException(file + " is not a TrainDeck checkpoint: it has no " + name);
            }
            if (e.getSize() >= 0 && e.getSize() != size) {
                throw new CheckpointException(
                        file + ": " + name + " inflates to " + e.getSize() + " bytes, but the manifest says " + size);
            }
            sizes.put(name, size);
        }
        long needed = 2 * (sizes.get("params.bin") + sizes.get("updater.bin") + sizes.getOrDefault(EMA, 0L));
        if (needed > Runtime.getRuntime().maxMemory()) {
            throw new CheckpointException(String.format(
                    Locale.ROOT,
                    "%s needs %.1f GB of memory to load, more than this Java may use "
                            + "(%.1f GB): give it more with -Xmx",
                    file,
                    needed / 1e9,
                    Runtime.getRuntime().maxMemory() / 1e9));
        }
        return sizes;
    }

    static ZipFile open(Path file) throws IOException, CheckpointException {
        if (!Files.isRegularFile(file)) {
            throw new CheckpointException("no such checkpoint file: " + file);
        }
        ZipFile zip;
        try {
            zip = new ZipFile(file.toFile());
        } catch (IOException e) {
            throw new CheckpointException(file + " is not a TrainDeck checkpoint (not a zip archive, or truncated)", e);
        }
        var names = zip.entries();
        while (names.hasMoreElements()) {
            String name = names.nextElement().getName();
            if (!ENTRIES.contains(name)) {
                zip.close();
                throw new CheckpointException(
                        file + " is not a TrainDeck checkpoint: unexpected entry \"" + name + "\"");
            }
        }
        return zip;
    }

    static byte[] entry(ZipFile zip, Path file, String name, long maxSize) throws IOException, CheckpointException {
        ZipEntry e = zip.getEntry(name);
        if (e == null) {
            throw new CheckpointException(file + " is not a TrainDeck checkpoint: it has no " + name);
        }
        try (InputStream in = zip.getInputStream(e)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Math.max(e.getSize(), 0), 1 << 20));
            byte[] buf = new byte[1 << 16];
            long total = 0;
            int n;
            while ((n = in.read(buf)) > 0) {
                total += n;
                if (total > maxSize) {
                    throw new CheckpointException(file + ": " + name + " is larger than its manifest allows");
                }
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        }
    }
}
