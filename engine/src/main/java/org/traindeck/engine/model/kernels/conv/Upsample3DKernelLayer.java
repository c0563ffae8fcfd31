package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.upsampling.Upsampling3D;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link Upsample3DKernel} at run time, on NCDHW float input: out[z·sd + a, y·sh + i, x·sw + j] = in[z, y, x] forward;
 * backward, each input voxel's gradient is the sum of its sd × sh × sw copies'. One channel's volume at a time through
 * scratch arrays; forward, the first output row of each input row is built once and copied sh times, and each output
 * slice so built copied sd times. Masks and other data types go to DL4J's layer.
 */
public class Upsample3DKernelLayer extends Upsampling3D {

    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[2][]);

    public Upsample3DKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private boolean computes(INDArray a) {
        int[] s = getSize();
        return dataType == DataType.FLOAT
                && a.dataType() == DataType.FLOAT
                && a.rank() == 5
                && maskArray == null
                && a.length() * s[0] * s[1] * s[2] < Integer.MAX_VALUE;
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, mgr);
        }
        INDArray x = Sgemm.dense(input);
        int[] s = getSize();
        int planes = (int) (x.size(0) * x.size(1));
        int d = (int) x.size(2);
        int h = (int) x.size(3);
        int w = (int) x.size(4);
        int oh = h * s[1];
        int ow = w * s[2];
        int outSize = d * s[0] * oh * ow;
        INDArray out = mgr.createUninitialized(
                ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {x.size(0), x.size(1), d * s[0], oh, ow}, 'c');
        FloatBuffer from = Sgemm.buffer(x);
        FloatBuffer to = Sgemm.buffer(out);
        float[][] scratch = scratch(d * h * w, outSize);
        float[] in = scratch[0];
        float[] o = scratch[1];
        for (int p = 0; p < planes; p++) {
            from.get(p * d * h * w, in, 0, d * h * w);
            for (int z = 0; z < d; z++) {
                int slice = z * s[0] * oh * ow;
                for (int y = 0; y < h; y++) {
                    int row = slice + y * s[1] * ow;
                    int at = (z * h + y) * w;
                    for (int c = 0; c < w; c++) {
                        float v = in[at + c];
                        for (int j = 0; j < s[2]; j++) {
                            o[row + c * s[2] + j] = v;
                        }
                    }
                    for (int i = 1; i < s[1]; i++) {
                        System.arraycopy(o, row, o, row + i * ow, ow);
                    }
                }
                for (int a = 1; a < s[0]; a++) {
                    System.arraycopy(o, slice, o, slice + a * oh * ow, oh * ow);
                }
            }
            to.put(p * outSize, o, 0, outSize);
        }
        return out;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        if (!computes(input) || !computes(epsilon)) {
            return super.backpropGradient(epsilon, mgr);
        }
        INDArray dy = Sgemm.dense(epsilon);
        int[] s = getSize();
        int planes = (int) (input.size(0) * input.size(1));
        int d = (int) input.size(2);
        int h = (int) input.size(3);
        int w = (int) input.size(4);
        int oh = h * s[1];
        int ow = w * s[2];
        int outSize = d * s[0] * oh * ow;
        INDArray dx = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, input.shape(), 'c');
        FloatBuffer gs = Sgemm.buffer(dy);
        FloatBuffer to = Sgemm.buffer(dx);
        float[][] scratch = scratch(d * h * w, outSize);
        float[] sum = scratch[0];
        float[] g = scratch[1];
        for (int p = 0; p < planes; p++) {
            gs.get(p * outSize, g, 0, outSize);
            for (int z = 0, at = 0; z < d; z++) {
                for (int y = 0; y < h; y++) {
                    for (int c = 0; c < w; c++, at++) {
                        sum[at] = copies(g, ((z * s[0] * oh) + y * s[1]) * ow + c * s[2], s, oh, ow);
                    }
                }
            }
            to.put(p * d * h * w, sum, 0, d * h * w);
        }
        return new Pair<>(new DefaultGradient(), dx);
    }

    /** The sum of one input voxel's copies' gradients, whose first copy is at {@code first}. */
    private static float copies(float[] g, int first, int[] s, int oh, int ow) {
        float sum = 0f;
        for (int a = 0; a < s[0]; a++) {
            for (int i = 0; i < s[1]; i++) {
                int at = first + (a * oh + i) * ow;
                for (int j = 0; j < s[2]; j++) {
                    sum += g[at + j];
                }
            }
        }
        return sum;
    }

    private static float[][] scratch(int a, int b) {
        float[][] s = SCRATCH.get();
        s[0] = HostFloats.atLeast(s[0] == null ? new float[0] : s[0], a);
        s[1] = HostFloats.atLeast(s[1] == null ? new float[0] : s[1], b);
        return s;
    }
}
