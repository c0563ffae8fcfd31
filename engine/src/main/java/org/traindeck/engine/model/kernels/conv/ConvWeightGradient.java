package org.traindeck.engine.model.kernels.conv;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The weight and bias gradients of a stride-1 convolution without its input gradient, for a layer that reads the
 * network's input (nobody reads that gradient, and libnd4j's conv2d_bp always computes it: most of the first layer's
 * backward pass). Per example and block of output rows, the input's windows are written out as columns (im2col), and
 * one product with the output gradient adds the weight and bias gradients ({@link WindowColumnsGradient}). First
 * layers have few input channels, so the columns are small.
 */
final class ConvWeightGradient extends WindowColumnsGradient {

    /** Output pixels per product (a 256×256 image in one). */
    static final int BLOCK_PIXELS = 1 << 16;

    ConvWeightGradient() {
        this(BLOCK_PIXELS);
    }

    /** @param blockPixels output pixels per product at most (whole rows; at least one row) */
    ConvWeightGradient(int blockPixels) {
        super(blockPixels);
    }

    /**
     * Output rows [from, to) of one example's windows: row (ci, i, j) holds x[ci, oy + i - pad, ox + j - pad] at
     * column (oy - from)·wo + ox, 0 outside the image.
     */
    @Override
    protected void windows(INDArray x, INDArray dz, int from, int to, int[] kernel, int[] pad) {
        int c = (int) x.size(1);
        int h = (int) x.size(2);
        int w = (int) x.size(3);
        int wo = (int) dz.size(3);
        int pixels = (to - from) * wo;
        int row = 0;
        for (int ci = 0; ci < c; ci++) {
            for (int i = 0; i < kernel[0]; i++) {
                for (int j = 0; j < kernel[1]; j++, row++) {
                    int shift = j - pad[1];
                    int left = Math.max(0, -shift);
                    int right = Math.min(wo, w - shift);
                    for (int oy = from; oy < to; oy++) {
                        int at = row * pixels + (oy - from) * wo;
                        int iy = oy + i - pad[0];
                        if (iy < 0 || iy >= h || left >= right) {
                            Arrays.fill(columns, at, at + wo, 0f);
                            continue;
                        }
                        Arrays.fill(columns, at, at + left, 0f);
                        System.arraycopy(example, (ci * h + iy) * w + left + shift, columns, at + left, right - left);
                        Arrays.fill(columns, at + right, at + wo, 0f);
                    }
                }
            }
        }
    }
}
