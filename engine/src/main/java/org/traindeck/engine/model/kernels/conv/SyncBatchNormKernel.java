package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A synchronized BatchNorm ({@link SyncBatchNorm}) computed by the fused kernel ({@link SyncBatchNormKernelLayer}):
 * what {@link SyncBatchNorm#of} makes of a {@link BatchNormKernel}. Same configuration and parameters as both.
 */
public class SyncBatchNormKernel extends SyncBatchNorm {

    /** For JSON. */
    public SyncBatchNormKernel() {}

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        return KernelInstances.wire(
                new SyncBatchNormKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public SyncBatchNormKernel clone() {
        return (SyncBatchNormKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SyncBatchNormKernel && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof SyncBatchNormKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 3;
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString();
    }
}
