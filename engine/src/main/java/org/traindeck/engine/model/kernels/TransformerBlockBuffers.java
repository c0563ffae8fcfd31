package org.traindeck.engine.model.kernels;

import java.nio.FloatBuffer;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Every activation and gradient buffer of one block for one (minibatch, length), allocated once in native memory
 * (the matrix products read and write it in place; the elementwise loops go through a {@link FloatBuffer} on the same
 * memory) and reused while the sizes stay. Rows are (example, time step): [rows = mb T, features].
 */
final class TransformerBlockBuffers {

    /** Native floats seen both ways: as a pointer for OpenBLAS and as a buffer for Java loops. */
    static final class Region {
        final FloatPointer pointer;
        final FloatBuffer buffer;
        private final boolean owned;

        private Region(FloatPointer pointer, boolean owned) {
            this.pointer = pointer;
            this.buffer = pointer.asBuffer();
            this.owned = owned;
        }

        static Region allocate(long floats) {
            return new Region(new FloatPointer(Math.max(1, floats)), true);
        }

        /** The memory of a dense float array (see {@link Sgemm#pointerTo}). */
        static Region of(INDArray array) {
            FloatPointer p = Sgemm.pointerTo(array);
            return new Region(p.limit(p.capacity()), false);
        }

        void free() {
            if (owned) {
                pointer.close();
            }
        }
    }

    final int mb;
    final int length;
    final int rows;
    // forward: kept for the backward pass (or recomputed)
    final Region x;
    final Region xhat1;
    final Region rstd1;
    final Region h1;
    final Region qkv;
    final Region probabilities;
    final Region attended;
    final Region r1;
    final Region xhat2;
    final Region rstd2;
    final Region h2;
    final Region u;
    final Region sigmoid;
    final Region z;
    final Region out;
    // backward
    final Region dy;
    final Region dm;
    final Region dz;
    final Region dh;
    final Region dr1;
    final Region datt;
    final Region dscores;
    final Region dqkv;

    TransformerBlockBuffers(int mb, int length, int width, int hidden, int heads) {
        this.mb = mb;
        this.length = length;
        this.rows = mb * length;
        long nc = (long) rows * width;
        long nf = (long) rows * hidden;
        x = Region.allocate(nc);
        xhat1 = Region.allocate(nc);
        rstd1 = Region.allocate(rows);
        h1 = Region.allocate(nc);
        qkv = Region.allocate(3 * nc);
        probabilities = Region.allocate((long) mb * heads * length * length);
        attended = Region.allocate(nc);
        r1 = Region.allocate(nc);
        xhat2 = Region.allocate(nc);
        rstd2 = Region.allocate(rows);
        h2 = Region.allocate(nc);
        u = Region.allocate(nf);
        sigmoid = Region.allocate(nf);
        z = Region.allocate(nf);
        out = Region.allocate(nc);
        dy = Region.allocate(nc);
        dm = Region.allocate(nc);
        dz = Region.allocate(nf);
        dh = Region.allocate(nc);
        dr1 = Region.allocate(nc);
        datt = Region.allocate(nc);
        dscores = Region.allocate((long) length * length);
        dqkv = Region.allocate(3 * nc);
    }

    boolean fits(int mb, int length) {
        return this.mb == mb && this.length == length;
    }

    void free() {
        for (Region r : new Region[] {x, xhat1, rstd1, h1, qkv, probabilities, attended, r1, xhat2, rstd2, h2, u, sigmoid, z, out,
                dy, dm, dz, dh, dr1, datt, dscores, dqkv}) {
            r.free();
        }
    }

    /**
     * Floats one example adds to the block's buffers (forward and backward), for memory estimates. With recompute
     * they are shared by all blocks of a thread, so a model needs them once, not per block.
     */
    static long floatsPerExample(long width, long hidden, long heads, long length) {
        long c = width * length;
        long f = hidden * length;
        return 19 * c + 4 * f + heads * length * length + 2 * length;
    }
}
