package org.traindeck.engine.model.kernels;

import java.nio.FloatBuffer;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Every activation and gradient buffer of one block for one (minibatch, length), allocated once and reused while the
 * sizes stay: what the matrix products read or write in native memory, what only the Java loops read on the heap
 * (where C2 vectorises them), copied between the two in bulk. Rows are (example, time step): [rows = mb T, features].
 */
public final class TransformerBlockBuffers {

    /** Native floats seen both ways: as a pointer for OpenBLAS and as a buffer for Java loops. */
    public static final class Region {
        public final FloatPointer pointer;
        public final FloatBuffer buffer;
        private final boolean owned;

        private Region(FloatPointer pointer, boolean owned) {
            this.pointer = pointer;
            this.buffer = pointer.asBuffer();
            this.owned = owned;
        }

        public static Region allocate(long floats) {
            return new Region(new FloatPointer(Math.max(1, floats)), true);
        }

        /** The memory of a dense float array (see {@link Sgemm#pointerTo}). */
        public static Region of(INDArray array) {
            FloatPointer p = Sgemm.pointerTo(array);
            return new Region(p.limit(p.capacity()), false);
        }

        /** The first {@code n} floats into {@code into}, in bulk. */
        public void read(float[] into, int n) {
            buffer.get(0, into, 0, n);
        }

        /** {@code n} floats of {@code from} into the region, in bulk. */
        public void write(float[] from, int n) {
            buffer.put(0, from, 0, n);
        }

        public void free() {
            if (owned) {
                pointer.close();
            }
        }
    }

    public final int mb;
    public final int length;
    public final int rows;
    /** Whether probabilities holds one example's attention probabilities, not the whole batch's (recompute). */
    public final boolean probabilitiesPerExample;
    // native, for the matrix products
    public final Region h1;
    public final Region qkv;
    public final Region probabilities;
    public final Region attended;
    public final Region h2;
    public final Region u;
    public final Region z;
    public final Region dm;
    public final Region dz;
    public final Region dh;
    public final Region datt;
    public final Region dscores;
    public final Region dqkv;
    public final Region ones;
    // heap, for the Java loops; kept from the forward pass for the backward pass (or recomputed)
    public final float[] x;
    public final float[] xhat1;
    public final float[] rstd1;
    public final float[] r1;
    public final float[] xhat2;
    public final float[] rstd2;
    /** The GELU's slope at each hidden unit, all its backward pass needs. */
    public final float[] geluSlope;
    // heap, backward
    public final float[] dy;
    public final float[] dr1;
    /** Transient rows: a product's result read back, or rows on their way to native memory or to the output. */
    public final float[] rows1;

    public final float[] rows2;
    /** One example's [t, heads t] block of probabilities and of their gradient, the exponentials' scratch, a row. */
    public final float[] block;

    public final float[] dblock;
    public final float[] expScratch;
    public final float[] column;
    /** Four chunk-sized arrays for the loops that work a chunk of rows at a time (see TransformerBlockMath.tile). */
    public final float[][] local;

    public TransformerBlockBuffers(
            int mb, int length, int width, int hidden, int heads, boolean probabilitiesPerExample) {
        this.mb = mb;
        this.probabilitiesPerExample = probabilitiesPerExample;
        this.length = length;
        this.rows = mb * length;
        int nc = rows * width;
        int nf = rows * hidden;
        int tt = length * length;
        int blockFloats = heads * tt;
        h1 = Region.allocate(nc);
        qkv = Region.allocate(3L * nc);
        probabilities = Region.allocate(probabilitiesPerExample ? blockFloats : (long) mb * heads * tt);
        attended = Region.allocate(nc);
        h2 = Region.allocate(nc);
        u = Region.allocate(nf);
        z = Region.allocate(nf);
        dm = Region.allocate(nc);
        dz = Region.allocate(nf);
        dh = Region.allocate(nc);
        datt = Region.allocate(nc);
        dscores = Region.allocate(blockFloats);
        dqkv = Region.allocate(3L * nc);
        ones = Region.allocate(rows);
        for (int i = 0; i < rows; i++) {
            ones.buffer.put(i, 1f);
        }
        x = new float[nc];
        xhat1 = new float[nc];
        rstd1 = new float[rows];
        r1 = new float[nc];
        xhat2 = new float[nc];
        rstd2 = new float[rows];
        geluSlope = new float[nf];
        dy = new float[nc];
        dr1 = new float[nc];
        rows1 = new float[Math.max(nf, nc)];
        rows2 = new float[Math.max(nf, nc)];
        block = new float[blockFloats];
        dblock = new float[blockFloats];
        expScratch = new float[blockFloats];
        column = new float[heads * length];
        int chunk = Math.max(
                TransformerBlockMath.tile(new float[width], width).length,
                TransformerBlockMath.tile(new float[hidden], hidden).length);
        local = new float[4][chunk];
    }

    public boolean fits(int mb, int length) {
        return this.mb == mb && this.length == length;
    }

    public void free() {
        for (Region r :
                new Region[] {h1, qkv, probabilities, attended, h2, u, z, dm, dz, dh, datt, dscores, dqkv, ones}) {
            r.free();
        }
    }

    /**
     * Floats one example adds to the block's buffers (forward and backward), for memory estimates. With recompute
     * they are shared by all blocks of a thread, so a model needs them once, not per block, and the attention
     * probabilities are one example's, not per example.
     */
    public static long floatsPerExample(
            long width, long hidden, long heads, long length, boolean probabilitiesPerExample) {
        long c = width * length;
        long f = hidden * length;
        // native: 12 c (qkv and dqkv count 3 each) + 3 f + heads t^2 + t (ones); heap: 8 c + 3 f (two of them the
        // transient rows, at least c each) + 2 t (row statistics); the [t, heads t] blocks are per batch, not per
        // example
        return 20 * c + 6 * f + (probabilitiesPerExample ? 0 : heads * length * length) + 3 * length;
    }
}
