package org.traindeck.engine.model.kernels.dense;

import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.Convolution3DLayer;
import org.deeplearning4j.nn.params.Convolution3DParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link Pointwise3D}'s run-time layer: per example out [C', V] = W [C', C] × x [C, V] + b over the V voxels of an
 * NCDHW volume, and in the backward pass dx = W^T dy, dW = Σ dy x^T and db = Σ dy, each a direct {@link Sgemm} call on
 * the arrays' memory (or a sum). Anything the kernel does not take goes to DL4J's Convolution3DLayer.
 */
public class Pointwise3DLayer extends Convolution3DLayer {

    public Pointwise3DLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private Convolution3D conf3d() {
        return (Convolution3D) conf.getLayer();
    }

    /** Whether the kernel computes this input: float32 NCDHW, identity, no dropout, a host (CPU) backend. */
    boolean computes(INDArray in) {
        Convolution3D c = conf3d();
        return in.dataType() == DataType.FLOAT
                && in.rank() == 5
                && c.getDataFormat() == Convolution3D.DataFormat.NCDHW
                && c.getActivationFn() instanceof ActivationIdentity
                && c.getIDropout() == null
                && c.getWeightNoise() == null
                && Pointwise3D.isPointwise(c)
                && Nd4j.getEnvironment().isCPU();
    }

    private static INDArray dense(INDArray a, LayerWorkspaceMgr mgr, ArrayType type) {
        return Sgemm.isDenseRowMajor(a) ? a : mgr.dup(type, a, 'c');
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, workspaceMgr);
        }
        applyDropOutIfNecessary(training, workspaceMgr);
        INDArray in = dense(input, workspaceMgr, ArrayType.FF_WORKING_MEM);
        int mb = (int) in.size(0);
        int channels = (int) in.size(1);
        int outputs = (int) conf3d().getNOut();
        int voxels = (int) (in.length() / ((long) mb * channels));
        long[] shape = in.shape().clone();
        shape[1] = outputs;
        INDArray out = workspaceMgr.create(ArrayType.ACTIVATIONS, DataType.FLOAT, shape, 'c');
        FloatPointer x = Sgemm.pointerTo(in);
        FloatPointer y = Sgemm.pointerTo(out);
        FloatPointer w = Sgemm.pointerTo(weights());
        float[] bias = conf3d().hasBias()
                ? getParam(Convolution3DParamInitializer.BIAS_KEY).toFloatVector()
                : null;
        float[] row = new float[voxels];
        for (int e = 0; e < mb; e++) {
            long outAt = (long) e * outputs * voxels;
            if (bias != null) {
                for (int o = 0; o < outputs; o++) {
                    Arrays.fill(row, bias[o]);
                    Sgemm.buffer(out).put((int) (outAt + (long) o * voxels), row, 0, voxels);
                }
            }
            Sgemm.multiply(
                    false,
                    false,
                    outputs,
                    voxels,
                    channels,
                    1,
                    w,
                    0,
                    channels,
                    x,
                    (long) e * channels * voxels,
                    voxels,
                    bias != null ? 1 : 0,
                    y,
                    outAt,
                    voxels);
        }
        return out;
    }

    /** W as [C', C] c order (DL4J keeps it [C', C, 1, 1, 1]: the same floats). */
    private INDArray weights() {
        INDArray w = getParam(Convolution3DParamInitializer.WEIGHT_KEY);
        return Sgemm.isDenseRowMajor(w) ? w : w.dup('c');
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        assertInputSet(true);
        if (!computes(input)) {
            return super.backpropGradient(epsilon, workspaceMgr);
        }
        INDArray in = dense(input, workspaceMgr, ArrayType.BP_WORKING_MEM);
        INDArray eps = dense(epsilon, workspaceMgr, ArrayType.BP_WORKING_MEM);
        int mb = (int) in.size(0);
        int channels = (int) in.size(1);
        int outputs = (int) conf3d().getNOut();
        int voxels = (int) (in.length() / ((long) mb * channels));
        INDArray dx = workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, in.shape(), 'c');
        INDArray weightGradient = gradientViews.get(Convolution3DParamInitializer.WEIGHT_KEY);
        INDArray wg = Sgemm.isDenseRowMajor(weightGradient) ? weightGradient : weightGradient.dup('c');
        FloatPointer x = Sgemm.pointerTo(in);
        FloatPointer dy = Sgemm.pointerTo(eps);
        FloatPointer w = Sgemm.pointerTo(weights());
        FloatPointer dw = Sgemm.pointerTo(wg);
        FloatPointer dxp = Sgemm.pointerTo(dx);
        for (int e = 0; e < mb; e++) {
            long xAt = (long) e * channels * voxels;
            long yAt = (long) e * outputs * voxels;
            Sgemm.multiply(
                    true, false, channels, voxels, outputs, 1, w, 0, channels, dy, yAt, voxels, 0, dxp, xAt, voxels);
            Sgemm.multiply(
                    false,
                    true,
                    outputs,
                    channels,
                    voxels,
                    1,
                    dy,
                    yAt,
                    voxels,
                    x,
                    xAt,
                    voxels,
                    e == 0 ? 0 : 1,
                    dw,
                    0,
                    channels);
        }
        if (wg != weightGradient) {
            weightGradient.assign(wg);
        }
        Gradient g = new DefaultGradient(gradientsFlattened);
        if (conf3d().hasBias()) {
            INDArray biasGradient = gradientViews.get(Convolution3DParamInitializer.BIAS_KEY);
            biasGradient.assign(eps.reshape(mb, outputs, voxels).sum(0, 2).reshape(biasGradient.shape()));
            g.gradientForVariable().put(Convolution3DParamInitializer.BIAS_KEY, biasGradient);
        }
        g.gradientForVariable().put(Convolution3DParamInitializer.WEIGHT_KEY, weightGradient);
        weightNoiseParams.clear();
        return new Pair<>(g, workspaceMgr.leverageTo(ArrayType.ACTIVATION_GRAD, dx));
    }
}
