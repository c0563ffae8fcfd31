package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * The weight and bias gradients of a stride-1 convolution without its input gradient, for a layer that reads the
 * network's input: per example and block of whole output rows (conv2d) or slices (conv3d), the subclass writes the
 * input's windows out as columns, a row of ones goes under them, and one product with the output gradient adds the
 * block's weight gradient and, in the last column, its bias gradient. The blocks keep the columns small at any input
 * size.
 */
abstract class WindowColumnsGradient {

    /** The current example of the input, read once for all its blocks. */
    protected float[] example = new float[0];

    /** The current block's columns [k, block's output positions], written by {@link #windows}. */
    protected float[] columns = new float[0];

    private float[] sums = new float[0];
    private HostFloats.Native nativeColumns;
    private HostFloats.Native nativeSums;
    private final int blockSize;

    /** @param blockSize output positions per product at most (whole rows or slices; at least one) */
    WindowColumnsGradient(int blockSize) {
        this.blockSize = blockSize;
    }

    /**
     * @param x      the input [n, c, spatial…], dense row-major
     * @param dz     the pre-activation gradient [n, o, spatial…], dense row-major
     * @param dW     the weight gradient [o, c, kernel…] (overwritten), dense
     * @param db     the bias gradient [o] (overwritten), or null without a bias
     * @param kernel the window, one size per spatial dimension
     * @param pad    the padding before each spatial dimension
     */
    final void compute(INDArray x, INDArray dz, INDArray dW, INDArray db, int[] kernel, int[] pad) {
        int n = (int) x.size(0);
        int o = (int) dz.size(1);
        int outer = (int) dz.size(2);
        int inner = (int) (dz.length() / ((long) n * o * outer));
        int k = (int) x.size(1);
        for (int size : kernel) {
            k *= size;
        }
        int exampleSize = (int) (x.length() / n);
        // output rows or slices per product: the columns stay under blockSize × (k + 1) floats at any input size
        int block = Math.max(1, Math.min(outer, blockSize / inner));
        example = HostFloats.atLeast(example, exampleSize);
        columns = HostFloats.atLeast(columns, (long) (k + 1) * block * inner);
        nativeColumns = HostFloats.Native.fit(nativeColumns, (long) (k + 1) * block * inner);
        nativeSums = HostFloats.Native.fit(nativeSums, (long) o * (k + 1));
        FloatBuffer input = Sgemm.buffer(x);
        FloatPointer gradient = Sgemm.pointerTo(dz);
        for (int e = 0; e < n; e++) {
            input.get(e * exampleSize, example, 0, exampleSize);
            addExample(x, dz, gradient, e, block, kernel, pad, e == 0);
        }
        scatter(o, k, dW, db);
    }

    /**
     * Adds example {@code e} (already in {@link #example}) to the sums, block of output rows or slices by block. A
     * method of its own, so that HotSpot compiles it once instead of compiling the loop over the examples on the stack
     * (OSR) with all of this inlined, and again as a whole.
     */
    private void addExample(
            INDArray x, INDArray dz, FloatPointer gradient, int e, int block, int[] kernel, int[] pad, boolean first) {
        int o = (int) dz.size(1);
        int outer = (int) dz.size(2);
        int inner = (int) (dz.length() / (dz.size(0) * o * outer));
        int k = (int) x.size(1);
        for (int size : kernel) {
            k *= size;
        }
        boolean firstProduct = first;
        for (int from = 0; from < outer; from += block) {
            int to = Math.min(outer, from + block);
            int positions = (to - from) * inner;
            windows(x, dz, from, to, kernel, pad);
            Arrays.fill(columns, k * positions, (k + 1) * positions, 1f);
            nativeColumns.buffer.put(0, columns, 0, (k + 1) * positions);
            Sgemm.multiply(
                    false,
                    true,
                    o,
                    k + 1,
                    positions,
                    1f,
                    gradient,
                    ((long) e * o * outer + from) * inner,
                    outer * inner,
                    nativeColumns.pointer,
                    0,
                    positions,
                    firstProduct ? 0f : 1f,
                    nativeSums.pointer,
                    0,
                    k + 1);
            firstProduct = false;
        }
    }

    /**
     * The windows of {@link #example} under output rows or slices [from, to) into {@link #columns}: one row per input
     * channel and window position, one column per output position, 0 outside the input.
     */
    protected abstract void windows(INDArray x, INDArray dz, int from, int to, int[] kernel, int[] pad);

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
