package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Deconvolution3D;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A deconv3d node on TrainDeck's kernel ({@link Deconv3DKernelLayer}): DL4J's Deconvolution3D configuration unchanged
 * (same parameters, names, order and layout [kD, kH, kW, oC, iC], the op's own), computed by libnd4j's deconv3d and
 * deconv3d_bp ops called directly, with the relu in place and without the second forward pass DL4J's layer runs in
 * its backward pass.
 */
public class Deconv3DKernel extends Deconvolution3D {

    /** For JSON. */
    public Deconv3DKernel() {}

    /**
     * Whether {@link #of} takes this layer: NCDHW, dilation 1, relu or no activation, no dropout or weight noise (any
     * window, stride and padding mode: the kernel calls the same op with the same arguments as DL4J's layer).
     */
    public static boolean convertible(Deconvolution3D layer) {
        int[] dilation = layer.getDilation();
        return layer.getClass() == Deconvolution3D.class
                && layer.getKernelSize().length == 3
                && dilation[0] == 1
                && dilation[1] == 1
                && dilation[2] == 1
                && layer.getDataFormat() == Convolution3D.DataFormat.NCDHW
                && layer.getIDropout() == null
                && layer.getWeightNoise() == null
                && (layer.getActivationFn() instanceof ActivationReLU relu && relu.equals(new ActivationReLU())
                        || layer.getActivationFn() instanceof ActivationIdentity);
    }

    /** The layer on the kernel where {@code own} and it is {@link #convertible}, else the layer itself. */
    public static Deconvolution3D where(boolean own, Deconvolution3D layer) {
        return own && convertible(layer) ? of(layer) : layer;
    }

    /** The same layer configuration on the kernel. */
    public static Deconv3DKernel of(Deconvolution3D layer) {
        if (!convertible(layer)) {
            throw new IllegalArgumentException(
                    "only an NCDHW transposed convolution with relu or no activation runs on the kernel: " + layer);
        }
        return KernelInstances.copyFields(Deconvolution3D.class, layer, new Deconv3DKernel());
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
                new Deconv3DKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public Deconv3DKernel clone() {
        return (Deconv3DKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Deconv3DKernel && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof Deconv3DKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 19;
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString();
    }
}
