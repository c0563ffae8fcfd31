package org.traindeck.engine.data;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.zip.GZIPInputStream;

/** Reads MNIST-format (IDX) image and label files, plain or gzip-compressed. Pixels are scaled to [0, 1]. */
public final class IdxReader {

    private static final int IMAGES_MAGIC = 0x00000803;
    private static final int LABELS_MAGIC = 0x00000801;

    private IdxReader() {}

    /** Reads {@code <split>-images-idx3-ubyte[.gz]} and {@code <split>-labels-idx1-ubyte[.gz]} from {@code folder}. */
    public static Dataset read(Path folder, String split, int limit) throws IOException {
        Path images = existing(folder, split + "-images-idx3-ubyte");
        Path labels = existing(folder, split + "-labels-idx1-ubyte");
        try (DataInputStream in = open(images);
                DataInputStream lin = open(labels)) {
            Header header = header(in, lin, images, labels);
            int n = limit > 0 ? Math.min(limit, header.count()) : header.count();
            checkSizes(header, n, images, labels);
            return samples(in, lin, header, n, labels);
        } catch (EOFException e) {
            throw new IOException("IDX files in " + folder + " end early: truncated or damaged", e);
        }
    }

    /** The images' count and size, as the two headers agree on them. */
    private record Header(int count, int rows, int cols) {
        int pixels() {
            return rows * cols;
        }
    }

    private static Header header(DataInputStream in, DataInputStream lin, Path images, Path labels) throws IOException {
        int magic = in.readInt();
        if (magic != IMAGES_MAGIC) {
            throw new IOException(
                    images + " is not an IDX image file (magic number 0x" + Integer.toHexString(magic) + ")");
        }
        int count = in.readInt();
        int rows = in.readInt();
        int cols = in.readInt();
        int lmagic = lin.readInt();
        if (lmagic != LABELS_MAGIC) {
            throw new IOException(
                    labels + " is not an IDX label file (magic number 0x" + Integer.toHexString(lmagic) + ")");
        }
        int labelCount = lin.readInt();
        if (labelCount != count) {
            throw new IOException(
                    images + " holds " + count + " images but " + labels + " holds " + labelCount + " labels");
        }
        if (count < 0 || rows <= 0 || cols <= 0 || (long) rows * cols > 1 << 24) {
            throw new IOException(images + " has an implausible header: " + count + " images of " + rows + "×" + cols);
        }
        return new Header(count, rows, cols);
    }

    /** The header checked against the data really there before anything is allocated from it. */
    private static void checkSizes(Header h, int n, Path images, Path labels) throws IOException {
        long imageBytes = dataBytes(images);
        if (16 + (long) n * h.pixels() > imageBytes) {
            throw new IOException(images + " says it holds " + h.count() + " images of " + h.rows() + "×" + h.cols()
                    + " (" + (16 + (long) h.count() * h.pixels()) + " bytes), but it has " + imageBytes
                    + ": truncated or damaged");
        }
        long labelBytes = dataBytes(labels);
        if (8 + (long) n > labelBytes) {
            throw new IOException(labels + " says it holds " + h.count() + " labels, but it has " + (labelBytes - 8)
                    + ": truncated or damaged");
        }
    }

    private static Dataset samples(DataInputStream in, DataInputStream lin, Header h, int n, Path labels)
            throws IOException {
        int pixels = h.pixels();
        float[] features = new float[Math.multiplyExact(n, pixels)];
        byte[] row = new byte[pixels];
        int[] classes = new int[n];
        int maxClass = 0;
        int maxAt = 0;
        BitSet seen = new BitSet(256);
        for (int i = 0; i < n; i++) {
            in.readFully(row);
            for (int p = 0; p < pixels; p++) {
                features[i * pixels + p] = (row[p] & 0xff) / 255f;
            }
            classes[i] = lin.readUnsignedByte();
            seen.set(classes[i]);
            if (classes[i] > maxClass) {
                maxClass = classes[i];
                maxAt = i;
            }
        }
        if (maxClass >= 2 * seen.cardinality() && maxClass >= 10) {
            // one stray byte would otherwise silently add hundreds of empty classes
            seen.clear(maxClass);
            throw new IOException("label " + maxClass + " at byte offset " + (8 + maxAt) + " of " + labels
                    + " is out of range: " + "the other labels take " + seen.cardinality() + " values from 0 to "
                    + (seen.length() - 1) + " (damaged file?)");
        }
        return ArrayDatasets.classification(
                features,
                pixels,
                classes,
                Math.max(2, maxClass + 1),
                new SampleShape.Image(1, h.rows(), h.cols()),
                null);
    }

    /** The bytes of data in the file: its size, or for gzip its uncompressed size (the trailer's, modulo 4 GiB). */
    static long dataBytes(Path file) throws IOException {
        long size = Files.size(file);
        if (!file.getFileName().toString().endsWith(".gz")) {
            return size;
        }
        if (size < 18) {
            return 0;
        }
        try (SeekableByteChannel ch = Files.newByteChannel(file)) {
            ByteBuffer trailer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            ch.position(size - 4);
            while (trailer.hasRemaining() && ch.read(trailer) >= 0) {
                // read the 4 bytes
            }
            return Integer.toUnsignedLong(trailer.getInt(0));
        }
    }

    private static Path existing(Path folder, String base) throws IOException {
        Path plain = folder.resolve(base);
        if (Files.isRegularFile(plain)) {
            return plain;
        }
        Path gz = folder.resolve(base + ".gz");
        if (Files.isRegularFile(gz)) {
            return gz;
        }
        throw new IOException("no " + base + " or " + base + ".gz in " + folder);
    }

    private static DataInputStream open(Path file) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        if (file.getFileName().toString().endsWith(".gz")) {
            raw = new BufferedInputStream(new GZIPInputStream(raw, 1 << 16), 1 << 16);
        }
        return new DataInputStream(raw);
    }
}
