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

    private float[] image = new float[0];
    private float[] columns = new float[0];
    private float[] sums = new float[0];
    private HostFloats.Native nativeColumns;
    private HostFloats.Native nativeSums;

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
        int h = (int) x.size(2);
        int w = (int) x.size(3);
        int o = (int) dz.size(1);
        int pixels = (int) (dz.size(2) * dz.size(3));
        int k = c * kernel[0] * kernel[1];
        int imageSize = c * h * w;
        image = HostFloats.atLeast(image, imageSize);
        columns = HostFloats.atLeast(columns, (long) (k + 1) * pixels);
        Arrays.fill(columns, k * pixels, (k + 1) * pixels, 1f);
        nativeColumns = HostFloats.Native.fit(nativeColumns, (long) (k + 1) * pixels);
        nativeSums = HostFloats.Native.fit(nativeSums, (long) o * (k + 1));
        FloatBuffer input = Sgemm.buffer(x);
        FloatPointer gradient = Sgemm.pointerTo(dz);
        for (int e = 0; e < n; e++) {
            input.get(e * imageSize, image, 0, imageSize);
            im2col(c, h, w, (int) dz.size(2), (int) dz.size(3), kernel, pad);
            nativeColumns.buffer.put(0, columns, 0, (k + 1) * pixels);
            Sgemm.multiply(
                    false,
                    true,
                    o,
                    k + 1,
                    pixels,
                    1f,
                    gradient,
                    (long) e * o * pixels,
                    pixels,
                    nativeColumns.pointer,
                    0,
                    pixels,
                    e == 0 ? 0f : 1f,
                    nativeSums.pointer,
                    0,
                    k + 1);
        }
        scatter(o, k, dW, db);
    }

    /** One example's windows: row (ci, i, j) holds x[ci, oy + i - pad, ox + j - pad] at column oy·wo + ox, 0 outside. */
    private void im2col(int c, int h, int w, int ho, int wo, int[] kernel, int[] pad) {
        int row = 0;
        for (int ci = 0; ci < c; ci++) {
            for (int i = 0; i < kernel[0]; i++) {
                for (int j = 0; j < kernel[1]; j++, row++) {
                    int shift = j - pad[1];
                    int from = Math.max(0, -shift);
                    int to = Math.min(wo, w - shift);
                    for (int oy = 0; oy < ho; oy++) {
                        int at = (row * ho + oy) * wo;
                        int iy = oy + i - pad[0];
                        if (iy < 0 || iy >= h || from >= to) {
                            Arrays.fill(columns, at, at + wo, 0f);
                            continue;
                        }
                        Arrays.fill(columns, at, at + from, 0f);
                        System.arraycopy(image, (ci * h + iy) * w + from + shift, columns, at + from, to - from);
                        Arrays.fill(columns, at + to, at + wo, 0f);
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
