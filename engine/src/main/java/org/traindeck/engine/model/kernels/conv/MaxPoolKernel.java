package org.traindeck.engine.model.kernels.conv;

import java.util.Arrays;
import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A maxPool2d node with a 2×2 window and stride 2 on TrainDeck's kernel ({@link MaxPoolKernelLayer}): DL4J's
 * SubsamplingLayer configuration unchanged (no parameters), computed by Java loops over each channel's image.
 */
public class MaxPoolKernel extends SubsamplingLayer {

    /** Spelled out: inside a SubsamplingLayer subclass, "PoolingType" is DL4J's older nested enum of the same name. */
    private static final org.deeplearning4j.nn.conf.layers.PoolingType MAX =
            org.deeplearning4j.nn.conf.layers.PoolingType.MAX;

    /** For JSON. */
    public MaxPoolKernel() {}

    /** Whether {@link #of} takes this layer: max over 2×2 windows at stride 2, no padding or dilation, NCHW. */
    public static boolean convertible(SubsamplingLayer layer) {
        return layer.getClass() == SubsamplingLayer.class
                && layer.getPoolingType() == MAX
                && Arrays.equals(layer.getKernelSize(), new int[] {2, 2})
                && Arrays.equals(layer.getStride(), new int[] {2, 2})
                && Arrays.equals(layer.getPadding(), new int[] {0, 0})
                && Arrays.equals(layer.getDilation(), new int[] {1, 1})
                && layer.getCnn2dDataFormat() == CNN2DFormat.NCHW
                && layer.getIDropout() == null;
    }

    /** The same layer configuration on the kernel. */
    public static MaxPoolKernel of(SubsamplingLayer layer) {
        if (!convertible(layer)) {
            throw new IllegalArgumentException("only a 2×2 max pool at stride 2 runs on the kernel: " + layer);
        }
        return KernelInstances.copyFields(SubsamplingLayer.class, layer, new MaxPoolKernel());
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
                new MaxPoolKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public MaxPoolKernel clone() {
        return (MaxPoolKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MaxPoolKernel && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof MaxPoolKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 5;
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString();
    }
}
