package org.traindeck.engine.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * The checkpoint file format: a zip holding {@code manifest.json} (position, sizes and SHA-256 of every other
 * entry), {@code config.json} (the run config), {@code params.bin} and {@code updater.bin} (little-endian float32), and
 * {@code ema.bin} (the stage's weight average, float32 like the parameters) when the stage keeps one.
 * Reading checks everything before returning anything: known entry names only (nothing is ever extracted to a path),
 * sizes, checksums, the format marker. No Java or polymorphic deserialization is involved.
 */
public final class CheckpointFiles {

    public static final String EXTENSION = ".tdckpt";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The contents of a checkpoint, loaded and verified; {@code ema} is null when it holds no weight average. */
    public record Contents(
            Checkpoint checkpoint, String configJson, float[] params, float[] updaterState, float[] ema) {}

    private CheckpointFiles() {}

    /**
     * Writes crash-safely: to a temporary file in the same folder, flushed and fsync'd, atomically renamed to
     * {@code target}, then the folder fsync'd. A failure leaves no partial file under a checkpoint name.
     */
    public static void write(
            Path target, Checkpoint checkpoint, String configJson, float[] params, float[] updaterState)
            throws IOException {
        write(target, checkpoint, configJson, params, updaterState, CheckpointWriteHook.NONE);
    }

    /** As {@link #write(Path, Checkpoint, String, float[], float[])}, with a test's write faults. */
    public static void write(
            Path target,
            Checkpoint checkpoint,
            String configJson,
            float[] params,
            float[] updaterState,
            CheckpointWriteHook hook)
            throws IOException {
        write(target, checkpoint, configJson, params, updaterState, null, hook);
    }

    /** As {@link #write(Path, Checkpoint, String, float[], float[], CheckpointWriteHook)}, with a weight average (null: none). */
    public static void write(
            Path target,
            Checkpoint checkpoint,
            String configJson,
            float[] params,
            float[] updaterState,
            float[] ema,
            CheckpointWriteHook hook)
            throws IOException {
        if (ema != null && ema.length != params.length) {
            throw new IllegalArgumentException(
                    "the weight average has " + ema.length + " values, the parameters " + params.length);
        }
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp = dir.resolve(".tmp-" + UUID.randomUUID() + EXTENSION + ".part");
        try {
            byte[] config = configJson.getBytes(StandardCharsets.UTF_8);
            byte[] paramBytes = floats(params);
            byte[] updaterBytes = floats(updaterState);
            Map<String, byte[]> entries = new LinkedHashMap<>();
            entries.put("config.json", config);
            entries.put("params.bin", paramBytes);
            entries.put("updater.bin", updaterBytes);
            if (ema != null) {
                entries.put(CheckpointArchive.EMA, floats(ema));
            }
            byte[] manifest = CheckpointManifest.bytes(checkpoint, entries);
            try (FileChannel channel =
                    FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                OutputStream out = Channels.newOutputStream(channel);
                ZipOutputStream zip = new ZipOutputStream(out);
                put(zip, "manifest.json", manifest);
                hook.beforeData(checkpoint);
                for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                    put(zip, e.getKey(), e.getValue());
                    hook.afterEntry(e.getKey());
                }
                zip.finish();
                zip.flush();
                channel.force(true);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException(
                        "the file system of " + dir
                                + " cannot rename atomically, so checkpoints cannot be written safely there",
                        e);
            }
            fsyncDirectory(dir);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    static void fsyncDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Some platforms (Windows) cannot open a folder: the rename is still atomic there.
        }
    }

    /**
     * Stored, not deflated: a checkpoint is written on the training thread, and deflating float arrays took about 90 ms
     * per 2.8 MB (level 1) to save 7 % of the file.
     */
    private static void put(ZipOutputStream zip, String name, byte[] data) throws IOException {
        ZipEntry entry = new ZipEntry(name);
        entry.setMethod(ZipEntry.STORED);
        entry.setSize(data.length);
        entry.setCompressedSize(data.length);
        CRC32 crc = new CRC32();
        crc.update(data);
        entry.setCrc(crc.getValue());
        zip.putNextEntry(entry);
        zip.write(data);
        zip.closeEntry();
    }

    /** Reads and verifies everything: sizes, checksums, array lengths. */
    public static Contents read(Path file) throws CheckpointException {
        try (ZipFile zip = CheckpointArchive.open(file)) {
            Manifest manifest = Manifest.read(zip, file);
            Map<String, byte[]> data = new HashMap<>();
            for (String name : manifest.sizes().keySet()) {
                byte[] bytes = CheckpointArchive.entry(
                        zip, file, name, manifest.sizes().get(name));
                manifest.check(file, name, bytes.length, CheckpointManifest.sha256(bytes));
                data.put(name, bytes);
            }
            Checkpoint c = manifest.checkpoint();
            float[] params = floats(data.get("params.bin"));
            float[] updater = floats(data.get("updater.bin"));
            float[] ema = data.containsKey(CheckpointArchive.EMA) ? floats(data.get(CheckpointArchive.EMA)) : null;
            return new Contents(c, new String(data.get("config.json"), StandardCharsets.UTF_8), params, updater, ema);
        } catch (IOException e) {
            throw new CheckpointException(file + " is not a readable TrainDeck checkpoint: " + e.getMessage(), e);
        }
    }

    /**
     * Checks a checkpoint completely (structure, sizes, checksums) while holding only a small buffer, whatever its
     * entries claim to inflate to: for listings, where one hostile or damaged file must not hide the others.
     */
    public static Checkpoint verify(Path file) throws CheckpointException {
        try (ZipFile zip = CheckpointArchive.open(file)) {
            Manifest manifest = Manifest.read(zip, file);
            Map<String, Long> sizes = manifest.sizes();
            for (String name : sizes.keySet()) {
                MessageDigest digest = MessageDigest.getInstance("SHA-256");
                long total = 0;
                try (InputStream in = zip.getInputStream(zip.getEntry(name))) {
                    byte[] buf = new byte[1 << 16];
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        total += n;
                        if (total > sizes.get(name)) {
                            throw new CheckpointException(file + ": " + name + " is larger than its manifest allows");
                        }
                        digest.update(buf, 0, n);
                    }
                }
                manifest.check(file, name, total, HexFormat.of().formatHex(digest.digest()));
            }
            return manifest.checkpoint();
        } catch (IOException e) {
            throw new CheckpointException(file + " is not a readable TrainDeck checkpoint: " + e.getMessage(), e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A checkpoint's manifest: what it says of the checkpoint, and each entry's size and SHA-256 (hex). */
    private record Manifest(Checkpoint checkpoint, Map<String, Long> sizes, JsonNode entries) {

        static Manifest read(ZipFile zip, Path file) throws IOException, CheckpointException {
            byte[] bytes = CheckpointArchive.entry(zip, file, "manifest.json", CheckpointArchive.MAX_MANIFEST_BYTES);
            Checkpoint c = CheckpointManifest.parse(file, bytes);
            return new Manifest(
                    c,
                    CheckpointArchive.declaredSizes(file, zip, c),
                    JSON.readTree(bytes).get("entries"));
        }

        /** Whether entry {@code name}, as read, has the size and checksum the manifest gives it. */
        void check(Path file, String name, long size, String sha256) throws CheckpointException {
            if (size != sizes.get(name)) {
                throw new CheckpointException(file + ": " + name + " holds " + size + " bytes, the manifest says "
                        + sizes.get(name) + " (truncated?)");
            }
            if (!sha256.equals(entries.get(name).get("sha256").asText())) {
                throw new CheckpointException(
                        file + ": " + name + " does not match its checksum (the file is damaged)");
            }
        }
    }

    static byte[] floats(float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return b.array();
    }

    static float[] floats(byte[] bytes) throws CheckpointException {
        if (bytes.length % 4 != 0) {
            throw new CheckpointException("an array entry is not a whole number of float32 values");
        }
        float[] out = new float[bytes.length / 4];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }
}
