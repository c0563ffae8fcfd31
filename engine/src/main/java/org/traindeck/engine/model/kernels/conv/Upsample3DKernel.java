package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Upsampling3D;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * An upsample3d node on TrainDeck's kernel ({@link Upsample3DKernelLayer}): DL4J's Upsampling3D configuration unchanged
 * (no parameters), each voxel repeated by Java loops over each channel's volume.
 */
public class Upsample3DKernel extends Upsampling3D {

    /** For JSON. */
    public Upsample3DKernel() {}

    /** Whether {@link #of} takes this layer: NCDHW, no dropout. */
    public static boolean convertible(Upsampling3D layer) {
        return layer.getClass() == Upsampling3D.class
                && layer.getDataFormat() == Convolution3D.DataFormat.NCDHW
                && layer.getIDropout() == null;
    }

    /** The same layer configuration on the kernel. */
    public static Upsample3DKernel of(Upsampling3D layer) {
        if (!convertible(layer)) {
            throw new IllegalArgumentException("only an NCDHW upsampling without dropout runs on the kernel: " + layer);
        }
        return KernelInstances.copyFields(Upsampling3D.class, layer, new Upsample3DKernel());
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
                new Upsample3DKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public Upsample3DKernel clone() {
        return (Upsample3DKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Upsample3DKernel && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof Upsample3DKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 8;
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString();
    }
}
