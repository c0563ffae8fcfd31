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
 * one more read of the input. An odd height or width loses its last row or column (DL4J's truncate); with "same"
 * padding, odd sizes, masks and other data types go to DL4J's layer.
 */
public class MaxPoolKernelLayer extends SubsamplingLayer {

    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[2][]);

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

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        if (!computes(input) || !computes(epsilon)) {
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
        float[][] scratch = scratch(2 * h * w, oh * ow);
        float[] in = scratch[0];
        float[] g = scratch[1];
        int grad = h * w; // the input's gradient, after the input in the same scratch array
        for (int p = 0; p < planes; p++) {
            xs.get(p * h * w, in, 0, h * w);
            gs.get(p * oh * ow, g, 0, oh * ow);
            Arrays.fill(in, grad, grad + h * w, 0f);
            for (int y = 0; y < oh; y++) {
                routeRow(in, g, y * ow, ow, 2 * y * w, 2 * y * w + w, grad);
            }
            to.put(p * h * w, in, grad, h * w);
        }
        return new Pair<>(new DefaultGradient(), dx);
    }

    /**
     * One row of windows backward: the gradient to the window's first maximum, 0 to the rest, written at {@code grad}
     * past the input's positions in {@code in}. Float arithmetic instead of branches or selects: on random activations
     * a branch on which of four is largest is mispredicted about half the time (the relu kernel's lesson).
     */
    private static void routeRow(float[] in, float[] g, int at, int ow, int r0, int r1, int grad) {
        for (int c = 0; c < ow; c++) {
            float a = in[r0 + 2 * c];
            float b = in[r0 + 2 * c + 1];
            float d = in[r1 + 2 * c];
            float e = in[r1 + 2 * c + 1];
            float m = Math.max(Math.max(a, b), Math.max(d, e));
            float first = isMax(a, m);
            float rest = 1f - first;
            float second = rest * isMax(b, m);
            rest -= second;
            float third = rest * isMax(d, m);
            float dy = g[at + c];
            in[grad + r0 + 2 * c] = first * dy;
            in[grad + r0 + 2 * c + 1] = second * dy;
            in[grad + r1 + 2 * c] = third * dy;
            in[grad + r1 + 2 * c + 1] = (rest - third) * dy;
        }
    }

    /**
     * 1 where {@code x} is the window's maximum {@code m}, else 0: m − x is 0 or positive, and any positive float, the
     * smallest subnormal included, times 2^254 is at least 1.
     */
    private static float isMax(float x, float m) {
        return 1f - Math.min(1f, (m - x) * 0x1p127f * 0x1p127f);
    }

    /** This thread's scratch arrays, grown to at least {@code a} and {@code b} floats. */
    private static float[][] scratch(int a, int b) {
        float[][] s = SCRATCH.get();
        s[0] = HostFloats.atLeast(s[0] == null ? new float[0] : s[0], a);
        s[1] = HostFloats.atLeast(s[1] == null ? new float[0] : s[1], b);
        return s;
    }
}
