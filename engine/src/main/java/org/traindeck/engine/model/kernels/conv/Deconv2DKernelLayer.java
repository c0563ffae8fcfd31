package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.Deconvolution2DLayer;
import org.deeplearning4j.nn.params.DeconvolutionParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.util.ConvolutionUtils;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.OpContext;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link Deconv2DKernel} at run time, on NCHW float input: libnd4j's deconv2d and deconv2d_bp ops (oneDNN's
 * primitives where the oneDNN natives are loaded) called directly on the layer's parameter and gradient views, with the
 * same arguments as DL4J's layer. What it leaves out of DL4J's layer around the same two ops: the second forward
 * pass in the backward pass (DL4J's layer computes its pre-activation again there), and the relu derivative's fresh
 * array (the mask is read from the relu output the graph's workspace still holds). Other data types, masks and
 * mismatched inputs go to DL4J's layer.
 */
public class Deconv2DKernelLayer extends Deconvolution2DLayer {

    private transient OpContext forward;
    private transient OpContext backward;
    private final KeptReluOutput kept = new KeptReluOutput();

    public Deconv2DKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private Deconv2DKernel kernelConf() {
        return (Deconv2DKernel) conf().getLayer();
    }

    private boolean computes(INDArray a) {
        return dataType == DataType.FLOAT
                && a.dataType() == DataType.FLOAT
                && a.rank() == 4
                && maskArray == null
                && a.size(1) == kernelConf().getNIn();
    }

    /** [height, width] of the output, as DL4J's layer computes it (which also checks the input against the window). */
    private int[] outputSize(INDArray x) {
        Deconv2DKernel k = kernelConf();
        boolean same = k.getConvolutionMode() == ConvolutionMode.Same;
        return ConvolutionUtils.getDeconvolutionOutputSize(
                x,
                k.getKernelSize(),
                k.getStride(),
                same ? null : k.getPadding(),
                k.getConvolutionMode(),
                k.getDilation(),
                CNN2DFormat.NCHW);
    }

    private long[] outputShape(INDArray x, int[] size) {
        return new long[] {x.size(0), kernelConf().getNOut(), size[0], size[1]};
    }

    /**
     * deconv2d's integer arguments: window, stride, padding, dilation, mode, NCHW; DL4J's layer's, but for a "same"
     * padding that is even on both sides, given as explicit padding (the same output, and faster: see ConvOpCalls).
     */
    private long[] arguments(int[] outputSize, INDArray x) {
        Deconv2DKernel k = kernelConf();
        int[] kernel = k.getKernelSize();
        int[] stride = k.getStride();
        boolean same = k.getConvolutionMode() == ConvolutionMode.Same;
        if (same && ConvOpCalls.symmetricSamePadding(kernel, stride)) {
            int[] pad = {(kernel[0] - stride[0]) / 2, (kernel[1] - stride[1]) / 2};
            return new long[] {kernel[0], kernel[1], stride[0], stride[1], pad[0], pad[1], 1, 1, 0, 0};
        }
        // the same-mode padding depends on the input's size: the arguments are set again for each pass
        int[] pad = same
                ? ConvolutionUtils.getSameModeTopLeftPadding(
                        outputSize, new int[] {(int) x.size(2), (int) x.size(3)}, kernel, stride, k.getDilation())
                : k.getPadding();
        return new long[] {kernel[0], kernel[1], stride[0], stride[1], pad[0], pad[1], 1, 1, same ? 1 : 0, 0};
    }

    /** DL4J's weights [iC, oC, kH, kW] as the op's [kH, kW, oC, iC]: a view, written through for the gradient. */
    private static INDArray opLayout(INDArray w) {
        return w.permute(2, 3, 1, 0);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, mgr);
        }
        INDArray x = Sgemm.dense(input);
        int[] size = outputSize(x);
        INDArray out = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, outputShape(x, size), 'c');
        forward = ConvOpCalls.ready(forward, arguments(size, x));
        ConvOpCalls.forward(
                forward,
                ConvOpCalls.DECONV2D,
                x,
                opLayout(getParam(DeconvolutionParamInitializer.WEIGHT_KEY)),
                hasBias() ? ConvOpCalls.vector(getParam(DeconvolutionParamInitializer.BIAS_KEY)) : null,
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
        int[] size = outputSize(input);
        if (relu && !kept.valid(outputShape(input, size))) {
            return super.backpropGradient(epsilon, mgr);
        }
        INDArray x = Sgemm.dense(input);
        INDArray dy = Sgemm.dense(epsilon);
        INDArray dz = relu ? kept.masked(dy) : dy;
        INDArray dW = gradientViews.get(DeconvolutionParamInitializer.WEIGHT_KEY);
        INDArray db = hasBias() ? gradientViews.get(DeconvolutionParamInitializer.BIAS_KEY) : null;
        INDArray dx = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c');
        backward = ConvOpCalls.ready(backward, arguments(size, x));
        ConvOpCalls.backward(
                backward,
                ConvOpCalls.DECONV2D_BP,
                x,
                opLayout(getParam(DeconvolutionParamInitializer.WEIGHT_KEY)),
                hasBias() ? ConvOpCalls.vector(getParam(DeconvolutionParamInitializer.BIAS_KEY)) : null,
                dz,
                dx,
                opLayout(dW),
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
}
