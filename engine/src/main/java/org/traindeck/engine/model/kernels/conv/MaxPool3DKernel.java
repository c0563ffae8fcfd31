package org.traindeck.engine.model.kernels.conv;

import java.util.Arrays;
import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Subsampling3DLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A maxPool3d node with a 2×2×2 window and stride 2 on TrainDeck's kernel ({@link MaxPool3DKernelLayer}): DL4J's
 * Subsampling3DLayer configuration unchanged (no parameters), computed by Java loops over each channel's volume.
 */
public class MaxPool3DKernel extends Subsampling3DLayer {

    /** Spelled out: inside a Subsampling3DLayer subclass, "PoolingType" is DL4J's nested enum of the same name. */
    private static final org.deeplearning4j.nn.conf.layers.PoolingType MAX =
            org.deeplearning4j.nn.conf.layers.PoolingType.MAX;

    /** For JSON. */
    public MaxPool3DKernel() {}

    /** Whether {@link #of} takes this layer: max over 2×2×2 windows at stride 2, no padding or dilation, NCDHW. */
    public static boolean convertible(Subsampling3DLayer layer) {
        return layer.getClass() == Subsampling3DLayer.class
                && layer.getPoolingType() == MAX
                && Arrays.equals(layer.getKernelSize(), new int[] {2, 2, 2})
                && Arrays.equals(layer.getStride(), new int[] {2, 2, 2})
                && Arrays.equals(layer.getPadding(), new int[] {0, 0, 0})
                && Arrays.equals(layer.getDilation(), new int[] {1, 1, 1})
                && layer.getDataFormat() == Convolution3D.DataFormat.NCDHW
                && layer.getIDropout() == null;
    }

    /** The same layer configuration on the kernel. */
    public static MaxPool3DKernel of(Subsampling3DLayer layer) {
        if (!convertible(layer)) {
            throw new IllegalArgumentException("only a 2×2×2 max pool at stride 2 runs on the kernel: " + layer);
        }
        return KernelInstances.copyFields(Subsampling3DLayer.class, layer, new MaxPool3DKernel());
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
                new MaxPool3DKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public MaxPool3DKernel clone() {
        return (MaxPool3DKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MaxPool3DKernel && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof MaxPool3DKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 7;
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString();
    }
}
