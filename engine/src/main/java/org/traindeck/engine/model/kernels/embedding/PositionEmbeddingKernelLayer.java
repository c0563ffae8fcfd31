package org.traindeck.engine.model.kernels.embedding;

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
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.DropoutMasks;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.layers.PositionEmbedding;

/**
 * The position embedding kernel at run time: out[b, c, t] = (x[b, c, t] + pos[c, t]) · mask, as Java loops; the
 * backward pass sums the (masked) gradient over the batch for pos and hands it on as the input's gradient. The dropout
 * mask is drawn from a seed taken from ND4J's RNG ({@link DropoutMasks}), so the network's seed governs it. It runs on the SameDiff layer's parameter handling
 * (the same parameter views as the reference) but never builds a SameDiff graph.
 */
public class PositionEmbeddingKernelLayer extends SameDiffLayer {

    private float[] values = new float[0];
    private float[] positions = new float[0];
    private float[] maskValues = new float[0];
    private boolean masked;
    private long[] shape;

    public PositionEmbeddingKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private PositionEmbeddingKernel embedding() {
        return (PositionEmbeddingKernel) layerConf();
    }

    /** DL4J's SameDiffLayer checks the shape and then drops the value. */
    @Override
    public void setParam(String key, INDArray val) {
        super.setParam(key, val);
        getParam(key).assign(val);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        int c = (int) embedding().width();
        int maxLength = (int) embedding().maxLength();
        if (input.rank() != 3 || input.size(1) != c || input.size(2) > maxLength) {
            throw new IllegalStateException("PositionEmbeddingKernel" + name() + ": expects [minibatch, " + c
                    + ", time <= " + maxLength + "], got " + Arrays.toString(input.shape()));
        }
        int mb = (int) input.size(0);
        int t = (int) input.size(2);
        int n = mb * c * t;
        shape = input.shape();
        values = HostFloats.atLeast(values, n);
        positions = HostFloats.atLeast(positions, (long) c * maxLength);
        HostFloats.read(input, values);
        HostFloats.read(getParam(PositionEmbedding.POSITIONS), positions);
        float[] x = values;
        float[] pos = positions;
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int at = (b * c + f) * t;
                int p = f * maxLength;
                for (int s = 0; s < t; s++) {
                    x[at + s] += pos[p + s];
                }
            }
        }
        masked = training && embedding().dropout() > 0;
        if (masked) {
            drawMask(n);
            float[] m = maskValues;
            for (int i = 0; i < n; i++) {
                x[i] *= m[i];
            }
        }
        INDArray out = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, shape, 'c');
        HostFloats.write(x, out);
        return out;
    }

    /** An inverted-dropout mask (values 0 or 1/keep). */
    private void drawMask(int n) {
        maskValues = HostFloats.atLeast(maskValues, n);
        DropoutMasks.fill(
                maskValues, n, Nd4j.getRandom().nextLong(), embedding().dropout());
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        if (shape == null || !Arrays.equals(epsilon.shape(), shape)) {
            throw new IllegalStateException(
                    "PositionEmbeddingKernel" + name() + ": backward pass without the forward pass of this batch");
        }
        int mb = (int) shape[0];
        int c = (int) shape[1];
        int t = (int) shape[2];
        int maxLength = (int) embedding().maxLength();
        int n = mb * c * t;
        float[] g = values;
        HostFloats.read(epsilon, g);
        if (masked) {
            float[] m = maskValues;
            for (int i = 0; i < n; i++) {
                g[i] *= m[i];
            }
        }
        float[] dPos = positions;
        Arrays.fill(dPos, 0, c * maxLength, 0f);
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int at = (b * c + f) * t;
                int p = f * maxLength;
                for (int s = 0; s < t; s++) {
                    dPos[p + s] += g[at + s];
                }
            }
        }
        INDArray posGrad = gradTable.get(PositionEmbedding.POSITIONS);
        HostFloats.write(dPos, posGrad);
        Gradient ret = new DefaultGradient();
        ret.gradientForVariable().put(PositionEmbedding.POSITIONS, posGrad);
        INDArray epsNext = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, shape, 'c');
        HostFloats.write(g, epsNext);
        return new Pair<>(ret, epsNext);
    }

    private String name() {
        String n = layerConf().getLayerName();
        return n == null ? "" : " \"" + n + "\"";
    }
}
