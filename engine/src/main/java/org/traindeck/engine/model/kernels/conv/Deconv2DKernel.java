package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A deconv2d node on TrainDeck's kernel ({@link Deconv2DKernelLayer}): DL4J's Deconvolution2D configuration unchanged
 * (same parameters, names, order and layout [iC, oC, kH, kW]), computed by libnd4j's deconv2d and deconv2d_bp ops
 * called directly, with the relu in place and without the second forward pass DL4J's layer runs in its backward pass.
 */
public class Deconv2DKernel extends Deconvolution2D {

    /** For JSON. */
    public Deconv2DKernel() {}

    /**
     * Whether {@link #of} takes this layer: NCHW, dilation 1, relu or no activation, no dropout or weight noise (any
     * window, stride and padding mode: the kernel calls the same op with the same arguments as DL4J's layer).
     */
    public static boolean convertible(Deconvolution2D layer) {
        int[] dilation = layer.getDilation();
        return layer.getClass() == Deconvolution2D.class
                && layer.getKernelSize().length == 2
                && dilation[0] == 1
                && dilation[1] == 1
                && layer.getCnn2dDataFormat() == CNN2DFormat.NCHW
                && layer.getIDropout() == null
                && layer.getWeightNoise() == null
                && (layer.getActivationFn() instanceof ActivationReLU relu && relu.equals(new ActivationReLU())
                        || layer.getActivationFn() instanceof ActivationIdentity);
    }

    /** The layer on the kernel where {@code own} and it is {@link #convertible}, else the layer itself. */
    public static Deconvolution2D where(boolean own, Deconvolution2D layer) {
        return own && convertible(layer) ? of(layer) : layer;
    }

    /** The same layer configuration on the kernel. */
    public static Deconv2DKernel of(Deconvolution2D layer) {
        if (!convertible(layer)) {
            throw new IllegalArgumentException(
                    "only an NCHW transposed convolution with relu or no activation runs on the kernel: " + layer);
        }
        return KernelInstances.copyFields(Deconvolution2D.class, layer, new Deconv2DKernel());
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
                new Deconv2DKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public Deconv2DKernel clone() {
        return (Deconv2DKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Deconv2DKernel && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof Deconv2DKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 17;
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString();
    }
}
