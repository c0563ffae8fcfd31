package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.upsampling.Upsampling2D;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link UpsampleKernel} at run time, on NCHW float input: out[y·sy + i, x·sx + j] = in[y, x] forward; backward, each
 * input pixel's gradient is the sum of its sy × sx copies' (added row by row). One channel's image at a time through
 * scratch arrays; the first output row of each input row is built once and copied sy times. Masks and other data types
 * go to DL4J's layer.
 */
public class UpsampleKernelLayer extends Upsampling2D {

    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[2][]);

    public UpsampleKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private boolean computes(INDArray a) {
        return dataType == DataType.FLOAT
                && a.dataType() == DataType.FLOAT
                && a.rank() == 4
                && maskArray == null
                && a.length() * getSize()[0] * getSize()[1] < Integer.MAX_VALUE;
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, mgr);
        }
        INDArray x = Sgemm.dense(input);
        int sy = getSize()[0];
        int sx = getSize()[1];
        int planes = (int) (x.size(0) * x.size(1));
        int h = (int) x.size(2);
        int w = (int) x.size(3);
        int ow = w * sx;
        INDArray out = mgr.createUninitialized(
                ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {x.size(0), x.size(1), h * sy, ow}, 'c');
        FloatBuffer from = Sgemm.buffer(x);
        FloatBuffer to = Sgemm.buffer(out);
        float[][] scratch = scratch(h * w, h * sy * ow);
        float[] in = scratch[0];
        float[] o = scratch[1];
        for (int p = 0; p < planes; p++) {
            from.get(p * h * w, in, 0, h * w);
            for (int y = 0; y < h; y++) {
                int row = y * sy * ow;
                for (int c = 0; c < w; c++) {
                    float v = in[y * w + c];
                    for (int j = 0; j < sx; j++) {
                        o[row + c * sx + j] = v;
                    }
                }
                for (int i = 1; i < sy; i++) {
                    System.arraycopy(o, row, o, row + i * ow, ow);
                }
            }
            to.put(p * h * sy * ow, o, 0, h * sy * ow);
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
        int sy = getSize()[0];
        int sx = getSize()[1];
        int planes = (int) (input.size(0) * input.size(1));
        int h = (int) input.size(2);
        int w = (int) input.size(3);
        int ow = w * sx;
        INDArray dx = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, input.shape(), 'c');
        FloatBuffer gs = Sgemm.buffer(dy);
        FloatBuffer to = Sgemm.buffer(dx);
        float[][] scratch = scratch(h * w, h * sy * ow);
        float[] sum = scratch[0];
        float[] g = scratch[1];
        for (int p = 0; p < planes; p++) {
            gs.get(p * h * sy * ow, g, 0, h * sy * ow);
            for (int y = 0; y < h; y++) {
                for (int c = 0; c < w; c++) {
                    float s = 0f;
                    for (int i = 0; i < sy; i++) {
                        int at = (y * sy + i) * ow + c * sx;
                        for (int j = 0; j < sx; j++) {
                            s += g[at + j];
                        }
                    }
                    sum[y * w + c] = s;
                }
            }
            to.put(p * h * w, sum, 0, h * w);
        }
        return new Pair<>(new DefaultGradient(), dx);
    }

    private static float[][] scratch(int a, int b) {
        float[][] s = SCRATCH.get();
        s[0] = HostFloats.atLeast(s[0] == null ? new float[0] : s[0], a);
        s[1] = HostFloats.atLeast(s[1] == null ? new float[0] : s[1], b);
        return s;
    }
}
