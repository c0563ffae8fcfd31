package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.ConvolutionLayer;
import org.deeplearning4j.nn.params.ConvolutionParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.OpContext;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link ConvKernel} at run time, on NCHW float input: libnd4j's conv2d and conv2d_bp ops (oneDNN's primitives where
 * the oneDNN natives are loaded, as a run loads them) called directly on the layer's parameter and gradient views,
 * with the relu as libnd4j's in-place op and its derivative as a Java loop. What it leaves out of DL4J's layer around
 * the same two ops: a copy of the pre-activation for the backward pass (the kernel reads the relu output the graph's
 * workspace still holds), the relu's and its derivative's fresh arrays, a recomputed forward pass when no forward
 * cache is open, and the input gradient of a layer that reads the network's input. Other data types, masks and
 * mismatched inputs go to DL4J's layer.
 */
public class ConvKernelLayer extends ConvolutionLayer {

    private transient OpContext forward;
    private transient OpContext backward;
    /** The relu's output of the last training forward pass, for the mask. */
    private final KeptReluOutput kept = new KeptReluOutput();

    private final ConvWeightGradient weightGradient = new ConvWeightGradient();

    public ConvKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private ConvKernel kernelConf() {
        return (ConvKernel) conf().getLayer();
    }

    private boolean computes(INDArray a) {
        return dataType == DataType.FLOAT
                && a.dataType() == DataType.FLOAT
                && a.rank() == 4
                && maskArray == null
                && a.size(1) == kernelConf().getNIn();
    }

    private long[] outputShape(INDArray x) {
        ConvKernel k = kernelConf();
        int[] kernel = k.getKernelSize();
        int[] pad = k.padding();
        return new long[] {
            x.size(0), k.getNOut(), x.size(2) + 2L * pad[0] - kernel[0] + 1, x.size(3) + 2L * pad[1] - kernel[1] + 1
        };
    }

    /** conv2d's integer arguments: window, stride 1, padding, dilation 1, same mode, NCHW, weights [oC, iC, kH, kW]. */
    private OpContext context() {
        ConvKernel k = kernelConf();
        int[] kernel = k.getKernelSize();
        int[] pad = k.padding();
        OpContext c = Nd4j.getExecutioner().buildContext();
        c.setIArguments(
                kernel[0],
                kernel[1],
                1,
                1,
                pad[0],
                pad[1],
                1,
                1,
                k.getConvolutionMode() == ConvolutionMode.Same ? 1 : 0,
                0,
                1);
        return c;
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, mgr);
        }
        INDArray x = Sgemm.dense(input);
        INDArray out = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, outputShape(x), 'c');
        if (forward == null) {
            forward = context();
        }
        forward.purge();
        forward.setInputArray(0, x);
        forward.setInputArray(1, getParam(ConvolutionParamInitializer.WEIGHT_KEY));
        if (hasBias()) {
            forward.setInputArray(2, ConvOpCalls.vector(getParam(ConvolutionParamInitializer.BIAS_KEY)));
        }
        forward.setOutputArray(0, out);
        Nd4j.exec(ConvOpCalls.CONV2D, forward);
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
        INDArray dW = gradientViews.get(ConvolutionParamInitializer.WEIGHT_KEY);
        INDArray db = gradientViews.get(ConvolutionParamInitializer.BIAS_KEY);
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
                ConvOpCalls.CONV2D_BP,
                x,
                getParam(ConvolutionParamInitializer.WEIGHT_KEY),
                hasBias() ? ConvOpCalls.vector(getParam(ConvolutionParamInitializer.BIAS_KEY)) : null,
                dz,
                dx,
                dW,
                hasBias() ? ConvOpCalls.vector(db) : null);
        return new Pair<>(gradient(dW, db), dx);
    }

    private Gradient gradient(INDArray dW, INDArray db) {
        return ConvOpCalls.gradient(dW, hasBias() ? db : null);
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
