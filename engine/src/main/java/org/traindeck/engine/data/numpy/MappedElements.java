package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * The data of an array as a list of read-only memory-mapped windows. A single mapping is limited to 2 GiB, so the data is
 * cut into windows of a whole number of elements: elements never straddle a window, samples may, and every read walks
 * over the windows it needs. Windows are never written to and read with absolute gets only, so threads can share them.
 */
final class MappedElements {

    /** Receives the file-order index of each non-finite element and what it is: 0 NaN, 1 +inf, -1 -inf. */
    interface NonFiniteVisitor {
        void visit(long elementIndex, int kind);
    }

    private final ByteBuffer[] windows;
    private final long windowBytes;
    private final NpyDType type;
    private final int size;
    private final long count;

    private MappedElements(ByteBuffer[] windows, long windowBytes, NpyDType type, long count) {
        this.windows = windows;
        this.windowBytes = windowBytes;
        this.type = type;
        this.size = type.bytes();
        this.count = count;
    }

    /** Maps {@code count} elements from byte {@code start} of {@code channel}, in windows of at most {@code maxWindowBytes}. */
    static MappedElements map(
            FileChannel channel, long start, long count, NpyDType type, ByteOrder order, long maxWindowBytes)
            throws IOException {
        int size = type.bytes();
        long windowBytes = Math.max(size, Math.min(maxWindowBytes, Integer.MAX_VALUE) / size * size);
        long length = Math.multiplyExact(count, (long) size);
        long windowCount = (length + windowBytes - 1) / windowBytes;
        if (windowCount > Integer.MAX_VALUE - 8) {
            throw new IOException("too many mapping windows: " + windowCount);
        }
        ByteBuffer[] windows = new ByteBuffer[(int) windowCount];
        for (int w = 0; w < windows.length; w++) {
            long from = w * windowBytes;
            long bytes = Math.min(windowBytes, length - from);
            windows[w] = channel.map(FileChannel.MapMode.READ_ONLY, start + from, bytes)
                    .order(order);
        }
        return new MappedElements(windows, windowBytes, type, count);
    }

    long count() {
        return count;
    }

    /** Converts the {@code n} elements from file-order index {@code first} to {@code dst[off + k * stride]}. */
    void toFloat(long first, int n, float[] dst, int off, int stride) {
        long e = first;
        int done = 0;
        while (done < n) {
            ByteBuffer w = windows[window(e)];
            int pos = position(e);
            int m = Math.min(n - done, (w.capacity() - pos) / size);
            ElementConverter.toFloat(w, pos, type, m, dst, off + done * stride, stride);
            e += m;
            done += m;
        }
    }

    /** As {@link #toFloat}; returns the file-order index of the first uint64 too large for a long, or -1. */
    long toLong(long first, int n, long[] dst, int off, int stride) {
        long e = first;
        int done = 0;
        long bad = -1;
        while (done < n) {
            ByteBuffer w = windows[window(e)];
            int pos = position(e);
            int m = Math.min(n - done, (w.capacity() - pos) / size);
            int k = ElementConverter.toLong(w, pos, type, m, dst, off + done * stride, stride);
            if (k >= 0 && bad < 0) {
                bad = e + k;
            }
            e += m;
            done += m;
        }
        return bad;
    }

    /** Streams once over every element of a float array, window by window, in bounded memory. */
    void scanNonFinite(NonFiniteVisitor visitor) {
        long base = 0;
        for (ByteBuffer w : windows) {
            int elements = w.capacity() / size;
            switch (type) {
                case FLOAT32 -> {
                    for (int k = 0; k < elements; k++) {
                        int bits = w.getInt(4 * k);
                        if ((bits & 0x7f800000) == 0x7f800000) {
                            visitor.visit(base + k, (bits & 0x007fffff) != 0 ? 0 : bits < 0 ? -1 : 1);
                        }
                    }
                }
                case FLOAT64 -> {
                    for (int k = 0; k < elements; k++) {
                        long bits = w.getLong(8 * k);
                        if ((bits & 0x7ff0000000000000L) == 0x7ff0000000000000L) {
                            visitor.visit(base + k, (bits & 0x000fffffffffffffL) != 0 ? 0 : bits < 0 ? -1 : 1);
                        }
                    }
                }
                case FLOAT16 -> {
                    for (int k = 0; k < elements; k++) {
                        short bits = w.getShort(2 * k);
                        if ((bits & 0x7c00) == 0x7c00) {
                            visitor.visit(base + k, (bits & 0x03ff) != 0 ? 0 : bits < 0 ? -1 : 1);
                        }
                    }
                }
                default -> throw new IllegalArgumentException(type + " is not a float type");
            }
            base += elements;
        }
    }

    private int window(long element) {
        return (int) (element * size / windowBytes);
    }

    private int position(long element) {
        return (int) (element * size % windowBytes);
    }
}
