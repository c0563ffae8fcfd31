package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.Convolution3DLayer;
import org.deeplearning4j.nn.params.Convolution3DParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.OpContext;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link Conv3DKernel} at run time, on NCDHW float input: libnd4j's conv3dnew and conv3dnew_bp ops called directly on
 * the layer's parameter and gradient views in DL4J's own weight layout [oC, iC, kD, kH, kW] (the ops' weight format 1,
 * where DL4J's layer hands them a permuted view), with the relu as libnd4j's in-place op and its derivative as a Java
 * loop. What it leaves out of DL4J's layer: the whole forward convolution DL4J's backward pass computes again for its
 * pre-activation (the kernel reads the relu output the graph's workspace still holds), the relu's fresh arrays, and the
 * input gradient of a layer that reads the network's input (conv3dnew_bp always computes it; the weight and bias
 * gradients come from {@link Conv3DWeightGradient} instead). A 1×1×1 window runs as matrix products
 * ({@link Conv3DPointwise}). Other data types, masks and mismatched inputs go to
 * DL4J's layer.
 */
public class Conv3DKernelLayer extends Convolution3DLayer {

    /** conv3dnew's weight format argument for [oC, iC, kD, kH, kW]. */
    private static final int WEIGHTS_OIDHW = 1;

    /** The relu's output of the last training forward pass, for the mask. */
    private final KeptReluOutput kept = new KeptReluOutput();

    private transient OpContext forward;
    private transient OpContext backward;

    private Conv3DWeightGradient weightGradient = new Conv3DWeightGradient();
    private final Conv3DPointwise pointwiseOps = new Conv3DPointwise();

    public Conv3DKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private Conv3DKernel kernelConf() {
        return (Conv3DKernel) conf().getLayer();
    }

    private boolean computes(INDArray a) {
        return dataType == DataType.FLOAT
                && a.dataType() == DataType.FLOAT
                && a.rank() == 5
                && maskArray == null
                && a.size(1) == kernelConf().getNIn();
    }

    private long[] outputShape(INDArray x) {
        Conv3DKernel k = kernelConf();
        int[] kernel = k.getKernelSize();
        int[] pad = k.padding();
        long[] shape = {x.size(0), k.getNOut(), 0, 0, 0};
        for (int a = 0; a < 3; a++) {
            shape[2 + a] = x.size(2 + a) + 2L * pad[a] - kernel[a] + 1;
        }
        return shape;
    }

    /** conv3dnew's integer arguments: window, stride 1, padding, dilation 1, same mode, NCDHW, weight format. */
    private OpContext context() {
        Conv3DKernel k = kernelConf();
        int[] kernel = k.getKernelSize();
        int[] pad = k.padding();
        OpContext c = Nd4j.getExecutioner().buildContext();
        c.setIArguments(
                kernel[0],
                kernel[1],
                kernel[2],
                1,
                1,
                1,
                pad[0],
                pad[1],
                pad[2],
                1,
                1,
                1,
                k.getConvolutionMode() == ConvolutionMode.Same ? 1 : 0,
                0,
                WEIGHTS_OIDHW);
        return c;
    }

    /** A 1×1×1 window without padding: the convolution is a matrix product per example. */
    private boolean pointwise() {
        int[] k = kernelConf().getKernelSize();
        int[] pad = kernelConf().padding();
        return k[0] * k[1] * k[2] == 1 && pad[0] == 0 && pad[1] == 0 && pad[2] == 0;
    }

    private void convolve(INDArray x, INDArray out) {
        if (forward == null) {
            forward = context();
        }
        forward.purge();
        forward.setInputArray(0, x);
        forward.setInputArray(1, getParam(Convolution3DParamInitializer.WEIGHT_KEY));
        if (hasBias()) {
            forward.setInputArray(2, ConvOpCalls.vector(getParam(Convolution3DParamInitializer.BIAS_KEY)));
        }
        forward.setOutputArray(0, out);
        Nd4j.exec(ConvOpCalls.CONV3D, forward);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, mgr);
        }
        INDArray x = Sgemm.dense(input);
        INDArray out = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, outputShape(x), 'c');
        if (pointwise()) {
            pointwiseOps.forward(
                    x,
                    getParam(Convolution3DParamInitializer.WEIGHT_KEY),
                    hasBias() ? ConvOpCalls.vector(getParam(Convolution3DParamInitializer.BIAS_KEY)) : null,
                    out);
        } else {
            convolve(x, out);
        }
        if (kernelConf().relu()) {
            kept.reluInPlace(out, training);
        }
        return out;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        boolean relu = kernelConf().relu();
        if (!computes(input) || epsilon.dataType() != DataType.FLOAT || relu && !kept.valid(outputShape(input))) {
            return super.backpropGradient(epsilon, mgr);
        }
        INDArray x = Sgemm.dense(input);
        INDArray dy = Sgemm.dense(epsilon);
        INDArray dz = relu ? kept.masked(dy) : dy;
        INDArray dW = gradientViews.get(Convolution3DParamInitializer.WEIGHT_KEY);
        INDArray db = gradientViews.get(Convolution3DParamInitializer.BIAS_KEY);
        if (pointwise()) {
            INDArray dx = kernelConf().inputGradient()
                    ? mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c')
                    : mgr.create(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c');
            pointwiseOps.backward(
                    x,
                    getParam(Convolution3DParamInitializer.WEIGHT_KEY),
                    dz,
                    kernelConf().inputGradient() ? dx : null,
                    dW,
                    hasBias() ? ConvOpCalls.vector(db) : null);
            return new Pair<>(gradient(dW, db), dx);
        }
        if (!kernelConf().inputGradient()) {
            weightGradient.compute(
                    x,
                    dz,
                    dW,
                    hasBias() ? ConvOpCalls.vector(db) : null,
                    kernelConf().getKernelSize(),
                    kernelConf().padding());
            return new Pair<>(gradient(dW, db), mgr.create(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c'));
        }
        INDArray dx = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c');
        if (backward == null) {
            backward = context();
        }
        ConvOpCalls.backward(
                backward,
                ConvOpCalls.CONV3D_BP,
                x,
                getParam(Convolution3DParamInitializer.WEIGHT_KEY),
                hasBias() ? ConvOpCalls.vector(getParam(Convolution3DParamInitializer.BIAS_KEY)) : null,
                dz,
                dx,
                dW,
                hasBias() ? ConvOpCalls.vector(db) : null);
        return new Pair<>(gradient(dW, db), dx);
    }

    private Gradient gradient(INDArray dW, INDArray db) {
        return ConvOpCalls.gradient(dW, hasBias() ? db : null);
    }

    /** A weight gradient in blocks of at most this many output voxels (tests: several blocks on small shapes). */
    void blockVoxels(int voxels) {
        weightGradient = new Conv3DWeightGradient(voxels);
    }

    /** Whether the backward pass will run on the kernel for an output of this shape (tests). */
    boolean backwardOnKernel(long[] outputShape) {
        return !kernelConf().relu() || kept.valid(outputShape);
    }

    @Override
    public void clear() {
        super.clear();
        kept.clear();
    }
}
