package org.traindeck.engine.model.kernels.conv;

import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * A 1×1×1 conv3d (a volume head's projection) as the matrix products it is, per example on [channels, voxels]
 * blocks: forward W·X plus the bias, backward dZ·Xᵀ, dZ's row sums and Wᵀ·dZ, each one OpenBLAS call. libnd4j's
 * conv3dnew_bp copies the whole input into columns and back for this (vol2col, col2vol with a 1×1×1 window).
 */
final class Conv3DPointwise {

    private HostFloats.Native ones;
    private final Conv3DFewChannels few = new Conv3DFewChannels();

    /** A row of {@code n} ones, made once per size. */
    private FloatPointer ones(long n) {
        if (ones == null || ones.length() < n) {
            ones = HostFloats.Native.of(n);
            ones.array.assign(1f);
        }
        return ones.pointer;
    }

    /**
     * @param x   the input [n, c, d, h, w], dense row-major
     * @param w   the weights [o, c, 1, 1, 1], dense
     * @param b   the bias [o], or null
     * @param out the output [n, o, d, h, w] (overwritten), dense row-major
     */
    void forward(INDArray x, INDArray w, INDArray b, INDArray out) {
        int n = (int) x.size(0);
        int c = (int) x.size(1);
        int o = (int) out.size(1);
        int voxels = (int) (x.length() / ((long) n * c));
        if (Conv3DFewChannels.takes(o, c)) {
            few.forward(x, w, b, out, n, c, o, voxels);
            return;
        }
        FloatPointer xs = Sgemm.pointerTo(x);
        FloatPointer ws = Sgemm.pointerTo(w);
        FloatPointer ys = Sgemm.pointerTo(out);
        FloatPointer bs = b == null ? null : Sgemm.pointerTo(b);
        FloatPointer one = b == null ? null : ones(voxels);
        for (int e = 0; e < n; e++) {
            long at = (long) e * o * voxels;
            Sgemm.multiply(
                    false, false, o, voxels, c, 1f, ws, 0, c, xs, (long) e * c * voxels, voxels, 0f, ys, at, voxels);
            if (bs != null) {
                Sgemm.multiply(false, false, o, voxels, 1, 1f, bs, 0, 1, one, 0, voxels, 1f, ys, at, voxels);
            }
        }
    }

    /**
     * @param x  the input [n, c, d, h, w], dense row-major
     * @param w  the weights [o, c, 1, 1, 1], dense
     * @param dz the pre-activation gradient [n, o, d, h, w], dense row-major
     * @param dx the input gradient (overwritten), or null where nobody reads it
     * @param dW the weight gradient (overwritten), dense
     * @param db the bias gradient [o] (overwritten), or null without a bias
     */
    void backward(INDArray x, INDArray w, INDArray dz, INDArray dx, INDArray dW, INDArray db) {
        int n = (int) x.size(0);
        int c = (int) x.size(1);
        int o = (int) dz.size(1);
        int voxels = (int) (x.length() / ((long) n * c));
        if (Conv3DFewChannels.takes(o, c)) {
            few.backward(x, w, dz, dx, dW, db, n, c, o, voxels);
            return;
        }
        FloatPointer xs = Sgemm.pointerTo(x);
        FloatPointer gs = Sgemm.pointerTo(dz);
        FloatPointer dws = Sgemm.pointerTo(dW);
        FloatPointer dbs = db == null ? null : Sgemm.pointerTo(db);
        FloatPointer one = db == null ? null : ones(voxels);
        for (int e = 0; e < n; e++) {
            long gAt = (long) e * o * voxels;
            long xAt = (long) e * c * voxels;
            float beta = e == 0 ? 0f : 1f;
            Sgemm.multiply(false, true, o, c, voxels, 1f, gs, gAt, voxels, xs, xAt, voxels, beta, dws, 0, c);
            if (dbs != null) {
                Sgemm.multiply(false, false, o, 1, voxels, 1f, gs, gAt, voxels, one, 0, 1, beta, dbs, 0, 1);
            }
            if (dx != null) {
                Sgemm.multiply(
                        true,
                        false,
                        c,
                        voxels,
                        o,
                        1f,
                        Sgemm.pointerTo(w),
                        0,
                        c,
                        gs,
                        gAt,
                        voxels,
                        0f,
                        Sgemm.pointerTo(dx),
                        xAt,
                        voxels);
            }
        }
    }
}
