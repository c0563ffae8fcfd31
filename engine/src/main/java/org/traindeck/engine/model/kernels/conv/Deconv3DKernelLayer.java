package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.Deconvolution3DLayer;
import org.deeplearning4j.nn.params.Deconvolution3DParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.util.ConvolutionUtils;
import org.nd4j.common.primitives.Pair;
import org.nd4j.common.util.ArrayUtil;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.OpContext;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link Deconv3DKernel} at run time, on NCDHW float input: libnd4j's deconv3d and deconv3d_bp ops called directly on
 * the layer's parameter and gradient views (DL4J's weight layout is the ops' own), with the arguments DL4J's layer
 * gives its forward pass. What it leaves out of DL4J's layer around the same two ops: the second forward pass in the
 * backward pass, and the relu derivative's fresh array (the mask is read from the relu output the graph's workspace
 * still holds). Other data types, masks and mismatched inputs go to DL4J's layer.
 */
public class Deconv3DKernelLayer extends Deconvolution3DLayer {

    private transient OpContext forward;
    private transient OpContext backward;
    private final KeptReluOutput kept = new KeptReluOutput();

    public Deconv3DKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private Deconv3DKernel kernelConf() {
        return (Deconv3DKernel) conf().getLayer();
    }

    private boolean computes(INDArray a) {
        return dataType == DataType.FLOAT
                && a.dataType() == DataType.FLOAT
                && a.rank() == 5
                && maskArray == null
                && a.size(1) == kernelConf().getNIn();
    }

    /** The output's three spatial sizes, as DL4J's layer computes them (which also checks the input). */
    private long[] outputSize(INDArray x) {
        Deconv3DKernel k = kernelConf();
        boolean same = k.getConvolutionMode() == ConvolutionMode.Same;
        return ConvolutionUtils.getDeconvolution3DOutputSize(
                x,
                k.getKernelSize(),
                k.getStride(),
                same ? null : k.getPadding(),
                k.getDilation(),
                k.getConvolutionMode(),
                Convolution3D.DataFormat.NCDHW);
    }

    private long[] outputShape(INDArray x, long[] size) {
        return new long[] {x.size(0), kernelConf().getNOut(), size[0], size[1], size[2]};
    }

    /**
     * deconv3d's integer arguments as DL4J's layer passes them to its forward pass (NCDHW), but for a "same" padding
     * that is even on both sides, given as explicit padding (the same output, and faster: see ConvOpCalls).
     */
    private long[] arguments(long[] outputSize, INDArray x) {
        Deconv3DKernel k = kernelConf();
        int[] kernel = k.getKernelSize();
        int[] stride = k.getStride();
        boolean same = k.getConvolutionMode() == ConvolutionMode.Same;
        if (same && ConvOpCalls.symmetricSamePadding(kernel, stride)) {
            return new long[] {
                kernel[0],
                kernel[1],
                kernel[2],
                stride[0],
                stride[1],
                stride[2],
                (kernel[0] - stride[0]) / 2,
                (kernel[1] - stride[1]) / 2,
                (kernel[2] - stride[2]) / 2,
                1,
                1,
                1,
                0,
                0
            };
        }
        // the same-mode padding depends on the input's size: the arguments are set again for each pass
        int[] pad = same
                ? ConvolutionUtils.getSameModeTopLeftPadding(
                        ArrayUtil.toInts(outputSize),
                        new int[] {(int) x.size(2), (int) x.size(3), (int) x.size(4)},
                        kernel,
                        stride,
                        k.getDilation())
                : k.getPadding();
        return new long[] {
            kernel[0],
            kernel[1],
            kernel[2],
            stride[0],
            stride[1],
            stride[2],
            pad[0],
            pad[1],
            pad[2],
            1,
            1,
            1,
            same ? 1 : 0,
            0
        };
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, mgr);
        }
        INDArray x = Sgemm.dense(input);
        long[] size = outputSize(x);
        INDArray out = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, outputShape(x, size), 'c');
        forward = ConvOpCalls.ready(forward, arguments(size, x));
        ConvOpCalls.forward(
                forward,
                ConvOpCalls.DECONV3D,
                x,
                getParam(Deconvolution3DParamInitializer.WEIGHT_KEY),
                bias() ? ConvOpCalls.vector(getParam(Deconvolution3DParamInitializer.BIAS_KEY)) : null,
                out);
        if (kernelConf().relu()) {
            kept.reluInPlace(out, training);
        }
        return out;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        boolean relu = kernelConf().relu();
        if (!computes(input) || epsilon.dataType() != DataType.FLOAT) {
            return super.backpropGradient(epsilon, mgr);
        }
        long[] size = outputSize(input);
        if (relu && !kept.valid(outputShape(input, size))) {
            return super.backpropGradient(epsilon, mgr);
        }
        INDArray x = Sgemm.dense(input);
        INDArray dy = Sgemm.dense(epsilon);
        INDArray dz = relu ? kept.masked(dy) : dy;
        INDArray dW = gradientViews.get(Deconvolution3DParamInitializer.WEIGHT_KEY);
        INDArray db = bias() ? gradientViews.get(Deconvolution3DParamInitializer.BIAS_KEY) : null;
        INDArray dx = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c');
        backward = ConvOpCalls.ready(backward, arguments(size, x));
        ConvOpCalls.backward(
                backward,
                ConvOpCalls.DECONV3D_BP,
                x,
                getParam(Deconvolution3DParamInitializer.WEIGHT_KEY),
                bias() ? ConvOpCalls.vector(getParam(Deconvolution3DParamInitializer.BIAS_KEY)) : null,
                dz,
                dx,
                dW,
                db == null ? null : ConvOpCalls.vector(db));
        return new Pair<>(ConvOpCalls.gradient(dW, db), dx);
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

    /** Whether the layer has a bias (DL4J's BaseLayer.hasBias, which Deconvolution3DLayer keeps, always says yes). */
    private boolean bias() {
        return kernelConf().hasBias();
    }
}
