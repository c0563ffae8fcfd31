package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Upsampling2D;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * An upsample2d node on TrainDeck's kernel ({@link UpsampleKernelLayer}): DL4J's Upsampling2D configuration unchanged
 * (no parameters), each pixel repeated by Java loops over each channel's image.
 */
public class UpsampleKernel extends Upsampling2D {

    /** For JSON. */
    public UpsampleKernel() {}

    /** Whether {@link #of} takes this layer: NCHW, no dropout. */
    public static boolean convertible(Upsampling2D layer) {
        return layer.getClass() == Upsampling2D.class
                && layer.getFormat() == CNN2DFormat.NCHW
                && layer.getIDropout() == null;
    }

    /** The same layer configuration on the kernel. */
    public static UpsampleKernel of(Upsampling2D layer) {
        if (!convertible(layer)) {
            throw new IllegalArgumentException("only an NCHW upsampling without dropout runs on the kernel: " + layer);
        }
        return KernelInstances.copyFields(Upsampling2D.class, layer, new UpsampleKernel());
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
                new UpsampleKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public UpsampleKernel clone() {
        return (UpsampleKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UpsampleKernel && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof UpsampleKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 6;
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString();
    }
}
