package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.subsampling.SubsamplingLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link MaxPoolKernel} at run time, on NCHW float input: each output is the maximum of its 2×2 window; backward, each
 * window's gradient goes to its first maximum (row by row, as oneDNN's and DL4J's max pooling pick it), the other
 * three get 0. The backward pass finds the maxima again from the input the layer keeps, as DL4J's maxpool2d_bp does,
 * so that no index from another forward pass (a health figure's, a recomputed one) can be used by mistake; it costs
 * one more read of the input. It works on blocks of whole channel images (a few thousand values: one copy in and out
 * per block rather than per image, whose small rows would otherwise cost more in calls than in work). An odd height
 * or width loses its last row or column (DL4J's truncate); with "same" padding, odd sizes, masks and other data types
 * go to DL4J's layer.
 */
public class MaxPoolKernelLayer extends SubsamplingLayer {

    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[2][]);

    /** Input values per block of whole channel images in the backward pass (at least one image). */
    static final int BLOCK_VALUES = 1 << 14;

    public MaxPoolKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private boolean computes(INDArray a) {
        return dataType == DataType.FLOAT
                && a.dataType() == DataType.FLOAT
                && a.rank() == 4
                && maskArray == null
                && a.length() < Integer.MAX_VALUE
                && (convolutionMode != ConvolutionMode.Same || a.size(2) % 2 == 0 && a.size(3) % 2 == 0);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, mgr);
        }
        INDArray x = Sgemm.dense(input);
        int planes = (int) (x.size(0) * x.size(1));
        int h = (int) x.size(2);
        int w = (int) x.size(3);
        int oh = h / 2;
        int ow = w / 2;
        INDArray out = mgr.createUninitialized(
                ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {x.size(0), x.size(1), oh, ow}, 'c');
        FloatBuffer from = Sgemm.buffer(x);
        FloatBuffer to = Sgemm.buffer(out);
        float[][] scratch = scratch(h * w, oh * ow);
        float[] in = scratch[0];
        float[] o = scratch[1];
        for (int p = 0; p < planes; p++) {
            from.get(p * h * w, in, 0, h * w);
            for (int y = 0; y < oh; y++) {
                int r0 = 2 * y * w;
                int r1 = r0 + w;
                int at = y * ow;
                for (int c = 0; c < ow; c++) {
                    o[at + c] = Math.max(
                            Math.max(in[r0 + 2 * c], in[r0 + 2 * c + 1]), Math.max(in[r1 + 2 * c], in[r1 + 2 * c + 1]));
                }
            }
            to.put(p * oh * ow, o, 0, oh * ow);
        }
        return out;
    }

    /**
     * Whether the backward pass runs on the kernel: an input the forward pass takes, and a float gradient of its pooled
     * shape (whose sizes may be odd under "same" padding: the LeNet's 14×14 to 7×7).
     */
    boolean backwardOnKernel(INDArray epsilon) {
        return computes(input)
                && epsilon.dataType() == DataType.FLOAT
                && Arrays.equals(
                        epsilon.shape(),
                        new long[] {input.size(0), input.size(1), input.size(2) / 2, input.size(3) / 2});
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        if (!backwardOnKernel(epsilon)) {
            return super.backpropGradient(epsilon, mgr);
        }
        INDArray x = Sgemm.dense(input);
        INDArray dy = Sgemm.dense(epsilon);
        int planes = (int) (x.size(0) * x.size(1));
        int h = (int) x.size(2);
        int w = (int) x.size(3);
        int oh = h / 2;
        int ow = w / 2;
        INDArray dx = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c');
        FloatBuffer xs = Sgemm.buffer(x);
        FloatBuffer gs = Sgemm.buffer(dy);
        FloatBuffer to = Sgemm.buffer(dx);
        int plane = h * w;
        int block = Math.max(1, BLOCK_VALUES / plane);
        float[][] scratch = scratch(2 * block * plane, block * oh * ow);
        float[] in = scratch[0];
        float[] g = scratch[1];
        int grad = block * plane; // the input's gradient, after the input in the same scratch array
        for (int p0 = 0; p0 < planes; p0 += block) {
            int n = Math.min(block, planes - p0);
            xs.get(p0 * plane, in, 0, n * plane);
            gs.get(p0 * oh * ow, g, 0, n * oh * ow);
            Arrays.fill(in, grad, grad + n * plane, 0f);
            for (int p = 0; p < n; p++) {
                for (int y = 0; y < oh; y++) {
                    int r0 = p * plane + 2 * y * w;
                    routeRow(in, g, (p * oh + y) * ow, ow, r0, r0 + w, grad);
                }
            }
            to.put(p0 * plane, in, grad, n * plane);
        }
        return new Pair<>(new DefaultGradient(), dx);
    }

    /**
     * One row of windows backward: each window's gradient to its first maximum (row by row), written at {@code grad}
     * past the input's positions in {@code in}, whose gradient part the caller has zeroed. The first maximum's place
     * is integer arithmetic on the three comparisons, one store a window: in a harness on the LeNet's first pool
     * ([64, 8, 28, 28], thread CPU) 0.67 ms against 0.92 for 0/1 factors in float arithmetic with four stores, and
     * against 1.7 ms for a chain of branches, which random activations mispredict. A window holding NaN has no
     * maximum equal to it and sends its gradient to its last value.
     */
    private static void routeRow(float[] in, float[] g, int at, int ow, int r0, int r1, int grad) {
        int down = r1 - r0;
        for (int c = 0; c < ow; c++) {
            int i = r0 + 2 * c;
            float a = in[i];
            float b = in[i + 1];
            float d = in[i + down];
            float e = in[i + down + 1];
            float m = Math.max(Math.max(a, b), Math.max(d, e));
            int notA = a == m ? 0 : 1;
            int notB = b == m ? 0 : 1;
            int notD = d == m ? 0 : 1;
            // a: 0; b: 1; d: down; e: down + 1
            int offset = notA * (1 - notB + notB * (down + notD));
            in[grad + i + offset] = g[at + c];
        }
    }

    /** This thread's scratch arrays, grown to at least {@code a} and {@code b} floats. */
    private static float[][] scratch(int a, int b) {
        float[][] s = SCRATCH.get();
        s[0] = HostFloats.atLeast(s[0] == null ? new float[0] : s[0], a);
        s[1] = HostFloats.atLeast(s[1] == null ? new float[0] : s[1], b);
        return s;
    }
}
