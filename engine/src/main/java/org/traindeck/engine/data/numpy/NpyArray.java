package org.traindeck.engine.data.numpy;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Objects;

/**
 * An {@code .npy} array read through memory mapping, so that files larger than the heap can be read sample by sample.
 * Sample {@code i} is the sub-array {@code [i, ...]}, always delivered in C order whatever the file's memory order.
 * Reads are safe from several threads at once: the mapped data is never written and no read keeps a position.
 */
public final class NpyArray implements AutoCloseable {

    /** Well under the 2 GiB a single mapping can hold. */
    static final long DEFAULT_WINDOW_BYTES = 1L << 30;

    private final String source;
    private final NpyHeader header;
    private final MappedElements data;
    private final Closeable resource;
    private volatile boolean closed;

    private NpyArray(String source, NpyHeader header, MappedElements data, Closeable resource) {
        this.source = source;
        this.header = header;
        this.data = data;
        this.resource = resource;
    }

    public static NpyArray open(Path npyFile) throws IOException {
        return open(npyFile, DEFAULT_WINDOW_BYTES);
    }

    /** Small windows let tests put window boundaries inside samples without writing gigabytes. */
    static NpyArray open(Path npyFile, long windowBytes) throws IOException {
        FileChannel channel = FileChannel.open(npyFile, StandardOpenOption.READ);
        try {
            return open(channel, 0, channel.size(), npyFile.toString(), windowBytes, channel);
        } catch (IOException | RuntimeException | Error e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Opens the {@code .npy} stream lying in {@code length} bytes from {@code start} of {@code channel}. {@code resource}
     * is closed with the array (null when someone else owns the channel).
     */
    static NpyArray open(
            FileChannel channel, long start, long length, String source, long windowBytes, Closeable resource)
            throws IOException {
        NpyHeader header = NpyHeaderReader.read(channel, start, length, source);
        MappedElements data = MappedElements.map(
                channel,
                start + header.dataOffset(),
                header.elementCount(),
                header.dtype(),
                header.order(),
                windowBytes);
        return new NpyArray(source, header, data, resource);
    }

    public NpyHeader header() {
        return header;
    }

    public long[] shape() {
        return header.shape();
    }

    public NpyDType dtype() {
        return header.dtype();
    }

    /** The file (or archive member) this array was read from, as used in messages. */
    public String source() {
        return source;
    }

    public long sampleCount() {
        return header.sampleCount();
    }

    public long sampleLength() {
        return header.sampleLength();
    }

    /** e.g. {@code float32 [60000, 28, 28] C order, little-endian}. */
    public String describe() {
        return header.describe();
    }

    /** Writes sample {@code i} as {@link #sampleLength()} floats to {@code out} from {@code offset}, in C order. */
    public void readSample(long i, float[] out, int offset) {
        readSamples(i, 1, out, offset);
    }

    /** Writes {@code count} consecutive samples one after the other, each in C order. */
    public void readSamples(long first, int count, float[] out, int offset) {
        int length = checkRead(first, count, out.length, offset);
        if (!isStrided()) {
            data.toFloat(first * length, count * length, out, offset, 1);
            return;
        }
        // Fortran order: the same position of consecutive samples lies in consecutive elements, so runs go by position
        long[] index = new long[header.rank()];
        long[] strides = fortranStrides();
        long inner = 0;
        for (int p = 0; p < length; p++) {
            data.toFloat(first + inner, count, out, offset + p, length);
            inner = next(index, strides, inner);
        }
    }

    /** Sample {@code i} of an integer or bool array as exact long values (labels, token ids), in C order. */
    public void readSampleLongs(long i, long[] out, int offset) {
        readSamplesLongs(i, 1, out, offset);
    }

    /** As {@link #readSamples}, as exact longs; a uint64 above Long.MAX_VALUE throws ArithmeticException naming it. */
    public void readSamplesLongs(long first, int count, long[] out, int offset) {
        requireIntegral("readSampleLongs");
        int length = checkRead(first, count, out.length, offset);
        long bad;
        if (!isStrided()) {
            bad = data.toLong(first * length, count * length, out, offset, 1);
        } else {
            bad = -1;
            long[] index = new long[header.rank()];
            long[] strides = fortranStrides();
            long inner = 0;
            for (int p = 0; p < length; p++) {
                long b = data.toLong(first + inner, count, out, offset + p, length);
                bad = bad < 0 ? b : bad;
                inner = next(index, strides, inner);
            }
        }
        if (bad >= 0) {
            throw tooLarge(bad);
        }
    }

    /** The first NaN or infinity in C order, or null when every value is finite (always null for integer arrays). */
    public NonFinite firstNonFinite() {
        checkOpen();
        if (!dtype().isFloat()) {
            return null;
        }
        long[] first = {Long.MAX_VALUE, 0, 0}; // C-order index, kind, count
        data.scanNonFinite((element, kind) -> {
            long c = cOrderIndex(element);
            if (c < first[0]) {
                first[0] = c;
                first[1] = kind;
            }
            first[2]++;
        });
        if (first[2] == 0) {
            return null;
        }
        long[] index = NpyIndex.multiIndex(first[0], header.shape());
        String kind = first[1] == 0 ? "NaN" : first[1] > 0 ? "+inf" : "-inf";
        return new NonFinite(source, index.length == 0 ? 0 : index[0], index, kind, first[2]);
    }

    /** {min, max} over every value of an integer or bool array, streamed in bounded memory; null when it is empty. */
    public long[] minMaxLong() {
        requireIntegral("minMaxLong");
        if (data.count() == 0) {
            return null;
        }
        long[] range = {Long.MAX_VALUE, Long.MIN_VALUE};
        forEachLongChunk((values, n, firstElement) -> {
            for (int k = 0; k < n; k++) {
                range[0] = Math.min(range[0], values[k]);
                range[1] = Math.max(range[1], values[k]);
            }
        });
        return range;
    }

    /**
     * The index (sample first, in C order) of the first value outside {@code [low, high]} of an integer or bool array,
     * or null when there is none; streamed in bounded memory.
     */
    public long[] firstOutside(long low, long high) {
        requireIntegral("firstOutside");
        long[] first = {Long.MAX_VALUE};
        forEachLongChunk((values, n, firstElement) -> {
            for (int k = 0; k < n; k++) {
                if (values[k] < low || values[k] > high) {
                    first[0] = Math.min(first[0], cOrderIndex(firstElement + k));
                }
            }
        });
        return first[0] == Long.MAX_VALUE ? null : NpyIndex.multiIndex(first[0], header.shape());
    }

    /** {@code n} values read as longs, the first of them the file's element {@code firstElement}. */
    private interface LongChunk {
        void accept(long[] values, int n, long firstElement);
    }

    /** Every value as longs, in file order, a bounded chunk at a time; a uint64 a long cannot hold is refused. */
    private void forEachLongChunk(LongChunk chunks) {
        long total = data.count();
        long[] chunk = new long[(int) Math.min(Math.max(total, 1), 1 << 14)];
        for (long e = 0; e < total; e += chunk.length) {
            int n = (int) Math.min(chunk.length, total - e);
            long bad = data.toLong(e, n, chunk, 0, 1);
            if (bad >= 0) {
                throw tooLarge(bad);
            }
            chunks.accept(chunk, n, e);
        }
    }

    /** Drops the mappings (the operating system unmaps them once they are garbage) and closes the file. */
    @Override
    public void close() throws IOException {
        closed = true;
        if (resource != null) {
            resource.close();
        }
    }

    boolean isClosed() {
        return closed;
    }

    private boolean isStrided() {
        return header.fortranOrder() && header.rank() > 1;
    }

    private int checkRead(long first, int count, int outLength, int offset) {
        checkOpen();
        long length = sampleLength();
        if (length > Integer.MAX_VALUE) {
            throw new IllegalStateException(source + ": a sample of " + length + " values does not fit a Java array");
        }
        if (first < 0 || count < 0 || first > sampleCount() - count) {
            throw new IndexOutOfBoundsException(source + ": samples " + first + ".." + (first + count - 1)
                    + " asked for, the array has " + sampleCount());
        }
        long values = (long) count * length;
        if (values > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(source + ": " + count + " samples of " + length + " values is too many");
        }
        Objects.checkFromIndexSize(offset, (int) values, outLength);
        return (int) length;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(source + " is closed");
        }
    }

    private void requireIntegral(String what) {
        checkOpen();
        if (!dtype().isIntegral()) {
            throw new IllegalStateException(source + " holds " + dtype().numpyName() + " values; " + what
                    + " is for integer and bool arrays (read floats with readSample)");
        }
    }

    private ArithmeticException tooLarge(long element) {
        return new ArithmeticException(source + ": uint64 value at index "
                + Arrays.toString(NpyIndex.multiIndex(cOrderIndex(element), header.shape()))
                + " is larger than a long can hold");
    }

    private long cOrderIndex(long fileIndex) {
        return header.fortranOrder() ? NpyIndex.fortranToC(fileIndex, header.shape()) : fileIndex;
    }

    /** File-order strides of axes 1..k-1 of a Fortran-order array (axis 0 has stride 1). */
    private long[] fortranStrides() {
        long[] shape = header.shape();
        long[] strides = new long[shape.length];
        long s = 1;
        for (int k = 0; k < shape.length; k++) {
            strides[k] = s;
            s *= shape[k];
        }
        return strides;
    }

    /** Steps {@code index} (axes 1..k-1, last fastest) to the next C-order position; returns its file offset. */
    private long next(long[] index, long[] strides, long inner) {
        long[] shape = header.shape();
        for (int k = shape.length - 1; k >= 1; k--) {
            if (++index[k] < shape[k]) {
                return inner + strides[k];
            }
            inner -= (index[k] - 1) * strides[k];
            index[k] = 0;
        }
        return inner;
    }
}
