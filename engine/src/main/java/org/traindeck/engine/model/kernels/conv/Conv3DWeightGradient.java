package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * The weight and bias gradients of a stride-1 conv3d without its input gradient, for a layer that reads the network's
 * input (libnd4j's conv3dnew_bp always computes it). As {@link ConvWeightGradient} for conv2d: per example and block
 * of output slices, the input's windows are written out as columns (vol2col) with a row of ones under them, and one
 * product with the output gradient adds the weight gradient and, in the last column, the bias gradient.
 */
final class Conv3DWeightGradient {

    /** Output voxels per product (a 64×64×16 block in one). */
    static final int BLOCK_VOXELS = 1 << 16;

    private float[] volume = new float[0];
    private float[] columns = new float[0];
    private float[] sums = new float[0];
    private HostFloats.Native nativeColumns;
    private HostFloats.Native nativeSums;
    private final int blockVoxels;

    Conv3DWeightGradient() {
        this(BLOCK_VOXELS);
    }

    /** @param blockVoxels output voxels per product at most (whole slices; at least one slice) */
    Conv3DWeightGradient(int blockVoxels) {
        this.blockVoxels = blockVoxels;
    }

    /**
     * @param x      the input [n, c, d, h, w], dense row-major
     * @param dz     the pre-activation gradient [n, o, od, oh, ow], dense row-major
     * @param dW     the weight gradient [o, c, kd, kh, kw] (overwritten), dense
     * @param db     the bias gradient [o] (overwritten), or null without a bias
     * @param kernel the window [kd, kh, kw]
     * @param pad    the front, top and left padding
     */
    void compute(INDArray x, INDArray dz, INDArray dW, INDArray db, int[] kernel, int[] pad) {
        int n = (int) x.size(0);
        int o = (int) dz.size(1);
        int od = (int) dz.size(2);
        int slice = (int) (dz.size(3) * dz.size(4));
        int k = (int) x.size(1) * kernel[0] * kernel[1] * kernel[2];
        int volumeSize = (int) (x.length() / n);
        int slices = Math.max(1, Math.min(od, blockVoxels / slice));
        volume = HostFloats.atLeast(volume, volumeSize);
        columns = HostFloats.atLeast(columns, (long) (k + 1) * slices * slice);
        nativeColumns = HostFloats.Native.fit(nativeColumns, (long) (k + 1) * slices * slice);
        nativeSums = HostFloats.Native.fit(nativeSums, (long) o * (k + 1));
        FloatBuffer input = Sgemm.buffer(x);
        FloatPointer gradient = Sgemm.pointerTo(dz);
        boolean first = true;
        for (int e = 0; e < n; e++) {
            input.get(e * volumeSize, volume, 0, volumeSize);
            for (int from = 0; from < od; from += slices) {
                int to = Math.min(od, from + slices);
                int voxels = (to - from) * slice;
                vol2col(x, dz, from, to, kernel, pad);
                Arrays.fill(columns, k * voxels, (k + 1) * voxels, 1f);
                nativeColumns.buffer.put(0, columns, 0, (k + 1) * voxels);
                Sgemm.multiply(
                        false,
                        true,
                        o,
                        k + 1,
                        voxels,
                        1f,
                        gradient,
                        ((long) e * o * od + from) * slice,
                        od * slice,
                        nativeColumns.pointer,
                        0,
                        voxels,
                        first ? 0f : 1f,
                        nativeSums.pointer,
                        0,
                        k + 1);
                first = false;
            }
        }
        scatter(o, k, dW, db);
    }

    /**
     * Output slices [from, to) of one example's windows: row (ci, a, i, j) holds x[ci, oz + a - pd, oy + i - ph, ox + j
     * - pw] at column ((oz - from)·oh + oy)·ow + ox, 0 outside the volume.
     */
    private void vol2col(INDArray x, INDArray dz, int from, int to, int[] kernel, int[] pad) {
        int c = (int) x.size(1);
        int voxels = (int) ((to - from) * dz.size(3) * dz.size(4));
        int row = 0;
        for (int ci = 0; ci < c; ci++) {
            for (int a = 0; a < kernel[0]; a++) {
                for (int i = 0; i < kernel[1]; i++) {
                    for (int j = 0; j < kernel[2]; j++, row++) {
                        int[] shift = {a - pad[0], i - pad[1], j - pad[2]};
                        windowRow(x, dz, ci, from, to, shift, row * voxels);
                    }
                }
            }
        }
    }

    /** One column row: the input shifted by {@code shift} under output slices [from, to), written at {@code at}. */
    private void windowRow(INDArray x, INDArray dz, int ci, int from, int to, int[] shift, int at) {
        int d = (int) x.size(2);
        int h = (int) x.size(3);
        int w = (int) x.size(4);
        int oh = (int) dz.size(3);
        int ow = (int) dz.size(4);
        int left = Math.max(0, -shift[2]);
        int right = Math.min(ow, w - shift[2]);
        for (int oz = from; oz < to; oz++) {
            int iz = oz + shift[0];
            for (int oy = 0; oy < oh; oy++, at += ow) {
                int iy = oy + shift[1];
                if (iz < 0 || iz >= d || iy < 0 || iy >= h || left >= right) {
                    Arrays.fill(columns, at, at + ow, 0f);
                    continue;
                }
                Arrays.fill(columns, at, at + left, 0f);
                System.arraycopy(
                        volume, ((ci * d + iz) * h + iy) * w + left + shift[2], columns, at + left, right - left);
                Arrays.fill(columns, at + right, at + ow, 0f);
            }
        }
    }

    /** The summed [o, k + 1] product into the weight gradient (its first k columns) and the bias gradient (the last). */
    private void scatter(int o, int k, INDArray dW, INDArray db) {
        sums = HostFloats.atLeast(sums, (long) o * (k + 1));
        nativeSums.buffer.get(0, sums, 0, o * (k + 1));
        FloatBuffer weights = Sgemm.buffer(dW);
        FloatBuffer bias = db == null ? null : Sgemm.buffer(db);
        for (int r = 0; r < o; r++) {
            weights.put(r * k, sums, r * (k + 1), k);
            if (bias != null) {
                bias.put(r, sums[r * (k + 1) + k]);
            }
        }
    }
}
