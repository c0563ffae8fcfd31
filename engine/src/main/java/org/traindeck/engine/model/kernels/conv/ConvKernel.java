package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.kernels.InputGradients;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A conv2d node at stride 1 on TrainDeck's kernel ({@link ConvKernelLayer}): DL4J's ConvolutionLayer configuration
 * unchanged (same parameters, names, order and layout), computed by libnd4j's conv2d and conv2d_bp ops (oneDNN's
 * primitives) called directly, with the relu in place and without the copies DL4J's layer makes around them.
 */
public class ConvKernel extends ConvolutionLayer implements InputGradients.Skippable {

    /** False where the input is the network's own input, whose gradient nobody reads (most of that layer's backward). */
    @JsonProperty
    private boolean inputGradient = true;

    /** For JSON. */
    public ConvKernel() {}

    public boolean inputGradient() {
        return inputGradient;
    }

    /** {@code false}: the backward pass returns zeros for the input, for a layer that reads the network's input. */
    @Override
    public void setInputGradient(boolean inputGradient) {
        this.inputGradient = inputGradient;
    }

    /**
     * Whether {@link #of} takes this layer: NCHW, stride and dilation 1, odd windows under "same" padding (or any
     * window with explicit padding), relu or no activation, no dropout or weight noise.
     */
    public static boolean convertible(ConvolutionLayer layer) {
        int[] k = layer.getKernelSize();
        ConvolutionMode mode = layer.getConvolutionMode();
        boolean oddWindow = k.length == 2 && k[0] % 2 == 1 && k[1] % 2 == 1;
        return layer.getClass() == ConvolutionLayer.class
                && k.length == 2
                && (mode == ConvolutionMode.Same && oddWindow
                        || mode == ConvolutionMode.Truncate
                        || mode == ConvolutionMode.Strict)
                && layer.getStride()[0] == 1
                && layer.getStride()[1] == 1
                && layer.getDilation()[0] == 1
                && layer.getDilation()[1] == 1
                && layer.getCnn2dDataFormat() == CNN2DFormat.NCHW
                && layer.getIDropout() == null
                && layer.getWeightNoise() == null
                && (layer.getActivationFn() instanceof ActivationReLU relu && plainRelu(relu)
                        || layer.getActivationFn() instanceof ActivationIdentity);
    }

    private static boolean plainRelu(ActivationReLU relu) {
        return relu.equals(new ActivationReLU());
    }

    /** The layer on the kernel where {@code own} and it is {@link #convertible}, else the layer itself. */
    public static ConvolutionLayer where(boolean own, ConvolutionLayer layer) {
        return own && convertible(layer) ? of(layer) : layer;
    }

    /** The same layer configuration on the kernel. */
    public static ConvKernel of(ConvolutionLayer layer) {
        if (!convertible(layer)) {
            throw new IllegalArgumentException(
                    "only a stride-1 NCHW convolution with relu or no activation runs on the kernel: " + layer);
        }
        return KernelInstances.copyFields(ConvolutionLayer.class, layer, new ConvKernel());
    }

    /** The top-left padding the kernel applies (DL4J's "same" at stride 1 for odd windows; else the layer's). */
    int[] padding() {
        int[] k = getKernelSize();
        return getConvolutionMode() == ConvolutionMode.Same ? new int[] {k[0] / 2, k[1] / 2} : getPadding();
    }

    boolean relu() {
        return getActivationFn() instanceof ActivationReLU;
    }

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        return KernelInstances.wire(
                new ConvKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public ConvKernel clone() {
        return (ConvKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConvKernel other && super.equals(o) && inputGradient == other.inputGradient;
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof ConvKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + (inputGradient ? 11 : 13);
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString() + (inputGradient ? "" : "(no input gradient)");
    }
}
