package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.subsampling.Subsampling3DLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link MaxPool3DKernel} at run time, on NCDHW float input: each output is the maximum of its 2×2×2 window; backward,
 * each window's gradient goes to its first maximum (slice by slice, row by row, as DL4J's maxpool3dnew_bp picks it),
 * the other seven get 0. As the 2D kernel ({@link MaxPoolKernelLayer}), the backward pass finds the maxima again from
 * the input the layer keeps. An odd depth, height or width loses its last slice, row or column (DL4J's truncate); with
 * "same" padding, odd sizes, masks and other data types go to DL4J's layer.
 */
public class MaxPool3DKernelLayer extends Subsampling3DLayer {

    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[2][]);

    public MaxPool3DKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private boolean computes(INDArray a) {
        return dataType == DataType.FLOAT
                && a.dataType() == DataType.FLOAT
                && a.rank() == 5
                && maskArray == null
                && a.length() < Integer.MAX_VALUE
                && (layerConf().getConvolutionMode() != ConvolutionMode.Same
                        || a.size(2) % 2 == 0 && a.size(3) % 2 == 0 && a.size(4) % 2 == 0);
    }

    /** A channel's volume: its sizes and the pooled sizes. */
    private record Volume(int d, int h, int w, int od, int oh, int ow) {
        static Volume of(INDArray x) {
            int d = (int) x.size(2);
            int h = (int) x.size(3);
            int w = (int) x.size(4);
            return new Volume(d, h, w, d / 2, h / 2, w / 2);
        }

        /** Whether some input voxels lie in no window (an odd size, truncated). */
        boolean truncated() {
            return d % 2 + h % 2 + w % 2 > 0;
        }

        int size() {
            return d * h * w;
        }

        int pooled() {
            return od * oh * ow;
        }

        /** The input offset of the window under output (z, y, 0). */
        int corner(int z, int y) {
            return (2 * z * h + 2 * y) * w;
        }
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, mgr);
        }
        INDArray x = Sgemm.dense(input);
        Volume v = Volume.of(x);
        int planes = (int) (x.size(0) * x.size(1));
        INDArray out = mgr.createUninitialized(
                ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {x.size(0), x.size(1), v.od, v.oh, v.ow}, 'c');
        FloatBuffer from = Sgemm.buffer(x);
        FloatBuffer to = Sgemm.buffer(out);
        float[][] scratch = scratch(v.size() + v.w, v.pooled());
        float[] in = scratch[0];
        float[] o = scratch[1];
        for (int p = 0; p < planes; p++) {
            from.get(p * v.size(), in, 0, v.size());
            for (int z = 0; z < v.od; z++) {
                for (int y = 0; y < v.oh; y++) {
                    poolRow(in, v.corner(z, y), v, o, (z * v.oh + y) * v.ow);
                }
            }
            to.put(p * v.pooled(), o, 0, v.pooled());
        }
        return out;
    }

    /**
     * One row of outputs: first the maximum over the window's four input rows, position by position (contiguous: the
     * loop the compiler vectorizes), after the input in {@code in}; then the maximum of each pair in that row.
     */
    private static void poolRow(float[] in, int r, Volume v, float[] o, int at) {
        int w = v.w;
        int s = r + v.h * w;
        int row = v.size();
        for (int x = 0; x < 2 * v.ow; x++) {
            in[row + x] = Math.max(Math.max(in[r + x], in[r + w + x]), Math.max(in[s + x], in[s + w + x]));
        }
        for (int c = 0; c < v.ow; c++) {
            o[at + c] = max(in[row + 2 * c], in[row + 2 * c + 1]);
        }
    }

    /**
     * Whether the backward pass runs on the kernel: an input the forward pass takes, and a float gradient of its pooled
     * shape (whose sizes may be odd under "same" padding).
     */
    boolean backwardOnKernel(INDArray epsilon) {
        return computes(input)
                && epsilon.dataType() == DataType.FLOAT
                && Arrays.equals(epsilon.shape(), new long[] {
                    input.size(0), input.size(1), input.size(2) / 2, input.size(3) / 2, input.size(4) / 2
                });
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        if (!backwardOnKernel(epsilon)) {
            return super.backpropGradient(epsilon, mgr);
        }
        INDArray x = Sgemm.dense(input);
        INDArray dy = Sgemm.dense(epsilon);
        Volume v = Volume.of(x);
        int planes = (int) (x.size(0) * x.size(1));
        INDArray dx = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c');
        FloatBuffer xs = Sgemm.buffer(x);
        FloatBuffer gs = Sgemm.buffer(dy);
        FloatBuffer to = Sgemm.buffer(dx);
        float[][] scratch = scratch(2 * v.size(), v.pooled());
        float[] in = scratch[0];
        float[] g = scratch[1];
        int grad = v.size(); // the input's gradient, after the input in the same scratch array
        for (int p = 0; p < planes; p++) {
            xs.get(p * v.size(), in, 0, v.size());
            gs.get(p * v.pooled(), g, 0, v.pooled());
            if (v.truncated()) {
                Arrays.fill(in, grad, grad + v.size(), 0f);
            }
            int at = 0;
            for (int z = 0; z < v.od; z++) {
                for (int y = 0; y < v.oh; y++, at += v.ow) {
                    routeRow(in, g, at, v.ow, v.corner(z, y), v.w, v.h * v.w, grad);
                }
            }
            to.put(p * v.size(), in, grad, v.size());
        }
        return new Pair<>(new DefaultGradient(), dx);
    }

    /**
     * One row of windows backward: the gradient to the window's first maximum, 0 to the rest, written at {@code grad}
     * past the input's positions in {@code in}. The window's voxels at r, r + 1, r + w, r + w + 1, then the same one
     * slice (hw) further.
     */
    private static void routeRow(float[] in, float[] g, int at, int ow, int r, int w, int hw, int grad) {
        for (int c = 0; c < ow; c++, r += 2) {
            int s = r + hw;
            float v0 = in[r];
            float v1 = in[r + 1];
            float v2 = in[r + w];
            float v3 = in[r + w + 1];
            float v4 = in[s];
            float v5 = in[s + 1];
            float v6 = in[s + w];
            float v7 = in[s + w + 1];
            float m = max(max(max(v0, v1), max(v2, v3)), max(max(v4, v5), max(v6, v7)));
            // the first maximum's index, by conditional moves from the last window position to the first
            int k = 7;
            k = v6 == m ? 6 : k;
            k = v5 == m ? 5 : k;
            k = v4 == m ? 4 : k;
            k = v3 == m ? 3 : k;
            k = v2 == m ? 2 : k;
            k = v1 == m ? 1 : k;
            k = v0 == m ? 0 : k;
            int q = grad + r;
            in[q] = 0f;
            in[q + 1] = 0f;
            in[q + w] = 0f;
            in[q + w + 1] = 0f;
            in[q + hw] = 0f;
            in[q + hw + 1] = 0f;
            in[q + hw + w] = 0f;
            in[q + hw + w + 1] = 0f;
            in[q + (k & 1) + (k >> 1 & 1) * w + (k >> 2) * hw] = g[at + c];
        }
    }

    /** The larger of two floats, without Math.max's NaN and signed-zero care (libnd4j's pooling has none either). */
    private static float max(float a, float b) {
        return a > b ? a : b;
    }

    /** This thread's scratch arrays, grown to at least {@code a} and {@code b} floats. */
    private static float[][] scratch(int a, int b) {
        float[][] s = SCRATCH.get();
        s[0] = HostFloats.atLeast(s[0] == null ? new float[0] : s[0], a);
        s[1] = HostFloats.atLeast(s[1] == null ? new float[0] : s[1], b);
        return s;
    }
}
