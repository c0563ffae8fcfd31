package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * The weight and bias gradients of a stride-1 convolution without its input gradient, for a layer that reads the
 * network's input (nobody reads that gradient, and libnd4j's conv2d_bp always computes it: most of the first layer's
 * backward pass). Per example, the input's windows are written out as columns (im2col) with a row of ones under them,
 * and one product with the output gradient adds that example's weight gradient and, in the last column, its bias
 * gradient. First layers have few input channels, so the columns are small.
 */
final class ConvWeightGradient {

    /** Output pixels per product (a 256×256 image in one). */
    static final int BLOCK_PIXELS = 1 << 16;

    private float[] image = new float[0];
    private float[] columns = new float[0];
    private float[] sums = new float[0];
    private HostFloats.Native nativeColumns;
    private HostFloats.Native nativeSums;
    private final int blockPixels;

    ConvWeightGradient() {
        this(BLOCK_PIXELS);
    }

    /** @param blockPixels output pixels per product at most (whole rows; at least one row) */
    ConvWeightGradient(int blockPixels) {
        this.blockPixels = blockPixels;
    }

    /**
     * @param x      the input [n, c, h, w], dense row-major
     * @param dz     the pre-activation gradient [n, o, ho, wo], dense row-major
     * @param dW     the weight gradient [o, c, kh, kw] (overwritten), dense
     * @param db     the bias gradient [o] (overwritten), or null without a bias
     * @param kernel the window [kh, kw]
     * @param pad    the top and left padding
     */
    void compute(INDArray x, INDArray dz, INDArray dW, INDArray db, int[] kernel, int[] pad) {
        int n = (int) x.size(0);
        int c = (int) x.size(1);
        int o = (int) dz.size(1);
        int ho = (int) dz.size(2);
        int wo = (int) dz.size(3);
        int k = c * kernel[0] * kernel[1];
        int imageSize = (int) (c * x.size(2) * x.size(3));
        // output rows per product: the columns stay under blockPixels × (k + 1) floats at any image size
        int rows = Math.max(1, Math.min(ho, blockPixels / wo));
        image = HostFloats.atLeast(image, imageSize);
        columns = HostFloats.atLeast(columns, (long) (k + 1) * rows * wo);
        nativeColumns = HostFloats.Native.fit(nativeColumns, (long) (k + 1) * rows * wo);
        nativeSums = HostFloats.Native.fit(nativeSums, (long) o * (k + 1));
        FloatBuffer input = Sgemm.buffer(x);
        FloatPointer gradient = Sgemm.pointerTo(dz);
        boolean first = true;
        for (int e = 0; e < n; e++) {
            input.get(e * imageSize, image, 0, imageSize);
            for (int from = 0; from < ho; from += rows) {
                int pixels = Math.min(rows, ho - from) * wo;
                im2col(x, from, from + pixels / wo, wo, kernel, pad);
                Arrays.fill(columns, k * pixels, (k + 1) * pixels, 1f);
                nativeColumns.buffer.put(0, columns, 0, (k + 1) * pixels);
                Sgemm.multiply(
                        false,
                        true,
                        o,
                        k + 1,
                        pixels,
                        1f,
                        gradient,
                        ((long) e * o * ho + from) * wo,
                        ho * wo,
                        nativeColumns.pointer,
                        0,
                        pixels,
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
     * Output rows [from, to) of one example's windows: row (ci, i, j) holds x[ci, oy + i - pad, ox + j - pad] at
     * column (oy - from)·wo + ox, 0 outside the image.
     */
    private void im2col(INDArray x, int from, int to, int wo, int[] kernel, int[] pad) {
        int c = (int) x.size(1);
        int h = (int) x.size(2);
        int w = (int) x.size(3);
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
                        System.arraycopy(image, (ci * h + iy) * w + left + shift, columns, at + left, right - left);
                        Arrays.fill(columns, at + right, at + wo, 0f);
                    }
                }
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
