package org.traindeck.engine.model.kernels.dense;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.samediff.SameDiffLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * The first-time-step kernel at run time: out[b, f] = x[b, f, 0], and the backward pass writes the gradient into step
 * 0 of a zero [mb, F, T]. Java loops over heap copies; it never builds the SameDiff graph of its configuration.
 */
public class FirstTimeStepKernelLayer extends SameDiffLayer {

    private float[] x = new float[0];
    private float[] g = new float[0];
    private long[] shape;

    public FirstTimeStepKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (input.rank() != 3) {
            throw new IllegalStateException("FirstTimeStepKernel" + name()
                    + ": expects [minibatch, features, time], got " + Arrays.toString(input.shape()));
        }
        shape = input.shape();
        int mb = (int) shape[0];
        int c = (int) shape[1];
        int t = (int) shape[2];
        x = HostFloats.atLeast(x, (long) mb * c * t);
        HostFloats.read(input, x);
        float[] out = HostFloats.atLeast(g, (long) mb * c);
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                out[b * c + f] = x[(b * c + f) * t];
            }
        }
        g = out;
        INDArray ret = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, c}, 'c');
        Sgemm.buffer(ret).put(0, out, 0, mb * c);
        return ret;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        if (shape == null || epsilon.length() != shape[0] * shape[1]) {
            throw new IllegalStateException(
                    "FirstTimeStepKernel" + name() + ": backward pass without the forward pass of this batch");
        }
        int mb = (int) shape[0];
        int c = (int) shape[1];
        int t = (int) shape[2];
        float[] e = HostFloats.atLeast(g, (long) mb * c);
        HostFloats.read(epsilon, e);
        float[] dx = x;
        Arrays.fill(dx, 0, mb * c * t, 0f);
        for (int i = 0; i < mb * c; i++) {
            dx[i * t] = e[i];
        }
        INDArray ret = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, shape, 'c');
        Sgemm.buffer(ret).put(0, dx, 0, mb * c * t);
        return new Pair<>(new DefaultGradient(), ret);
    }

    private String name() {
        String n = layerConf().getLayerName();
        return n == null ? "" : " \"" + n + "\"";
    }
}
