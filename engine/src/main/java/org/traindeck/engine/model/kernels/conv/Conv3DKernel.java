package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.kernels.InputGradients;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A conv3d node at stride 1 on TrainDeck's kernel ({@link Conv3DKernelLayer}): DL4J's Convolution3D configuration
 * unchanged (same parameters, names, order and layout), computed by libnd4j's conv3dnew and conv3dnew_bp ops called
 * directly on the layer's own weight layout, with the relu in place and without DL4J's second forward pass in the
 * backward pass.
 */
public class Conv3DKernel extends Convolution3D implements InputGradients.Skippable {

    /** False where the input is the network's own input, whose gradient nobody reads (most of that layer's backward). */
    @JsonProperty
    private boolean inputGradient = true;

    /** For JSON. */
    public Conv3DKernel() {}

    public boolean inputGradient() {
        return inputGradient;
    }

    /** {@code false}: the backward pass returns zeros for the input, for a layer that reads the network's input. */
    @Override
    public void setInputGradient(boolean inputGradient) {
        this.inputGradient = inputGradient;
    }

    /**
     * Whether {@link #of} takes this layer: NCDHW, stride and dilation 1, odd windows under "same" padding (or any
     * window with explicit padding), relu or no activation, no dropout or weight noise.
     */
    public static boolean convertible(Convolution3D layer) {
        int[] k = layer.getKernelSize();
        ConvolutionMode mode = layer.getConvolutionMode();
        boolean oddWindow = k.length == 3 && k[0] % 2 == 1 && k[1] % 2 == 1 && k[2] % 2 == 1;
        return layer.getClass() == Convolution3D.class
                && k.length == 3
                && (mode == ConvolutionMode.Same && oddWindow
                        || mode == ConvolutionMode.Truncate
                        || mode == ConvolutionMode.Strict)
                && ones(layer.getStride())
                && ones(layer.getDilation())
                && layer.getDataFormat() == DataFormat.NCDHW
                && layer.getIDropout() == null
                && layer.getWeightNoise() == null
                && (layer.getActivationFn() instanceof ActivationReLU relu && relu.equals(new ActivationReLU())
                        || layer.getActivationFn() instanceof ActivationIdentity);
    }

    private static boolean ones(int[] a) {
        return a.length == 3 && a[0] == 1 && a[1] == 1 && a[2] == 1;
    }

    /** The layer on the kernel where {@code own} and it is {@link #convertible}, else the layer itself. */
    public static Convolution3D where(boolean own, Convolution3D layer) {
        return own && convertible(layer) ? of(layer) : layer;
    }

    /** The same layer configuration on the kernel. */
    public static Conv3DKernel of(Convolution3D layer) {
        if (!convertible(layer)) {
            throw new IllegalArgumentException(
                    "only a stride-1 NCDHW conv3d with relu or no activation runs on the kernel: " + layer);
        }
        return KernelInstances.copyFields(Convolution3D.class, layer, new Conv3DKernel());
    }

    /** The front padding the kernel applies (DL4J's "same" at stride 1 for odd windows; else the layer's). */
    int[] padding() {
        int[] k = getKernelSize();
        return getConvolutionMode() == ConvolutionMode.Same ? new int[] {k[0] / 2, k[1] / 2, k[2] / 2} : getPadding();
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
                new Conv3DKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public Conv3DKernel clone() {
        return (Conv3DKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Conv3DKernel other && super.equals(o) && inputGradient == other.inputGradient;
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof Conv3DKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + (inputGradient ? 17 : 19);
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString() + (inputGradient ? "" : "(no input gradient)");
    }
}
