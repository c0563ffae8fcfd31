package org.traindeck.engine.model.kernels.conv;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The weight and bias gradients of a stride-1 conv3d without its input gradient, for a layer that reads the network's
 * input (libnd4j's conv3dnew_bp always computes it). As {@link ConvWeightGradient} for conv2d: per example and block
 * of output slices, the input's windows are written out as columns (vol2col), and one product with the output
 * gradient adds the weight and bias gradients ({@link WindowColumnsGradient}).
 */
final class Conv3DWeightGradient extends WindowColumnsGradient {

    /** Output voxels per product (a 64×64×16 block in one). */
    static final int BLOCK_VOXELS = 1 << 16;

    Conv3DWeightGradient() {
        this(BLOCK_VOXELS);
    }

    /** @param blockVoxels output voxels per product at most (whole slices; at least one slice) */
    Conv3DWeightGradient(int blockVoxels) {
        super(blockVoxels);
    }

    /**
     * Output slices [from, to) of one example's windows: row (ci, a, i, j) holds x[ci, oz + a - pd, oy + i - ph, ox + j
     * - pw] at column ((oz - from)·oh + oy)·ow + ox, 0 outside the volume.
     */
    @Override
    protected void windows(INDArray x, INDArray dz, int from, int to, int[] kernel, int[] pad) {
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
                        example, ((ci * d + iz) * h + iy) * w + left + shift[2], columns, at + left, right - left);
                Arrays.fill(columns, at + right, at + ow, 0f);
            }
        }
    }
}
