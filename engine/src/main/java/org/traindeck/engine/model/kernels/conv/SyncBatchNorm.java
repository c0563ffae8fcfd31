package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A BatchNorm node whose batch statistics are synchronized across the replicas of a synchronous data-parallel step
 * ({@link SyncBatchNormLayer}). It is DL4J's BatchNormalization configuration unchanged (options, JSON fields,
 * parameters gamma, beta, mean and the variance or log10 deviation, their updaters), so a network or checkpoint of
 * either loads into the other; only the training-time computation differs, and only while a step has several replicas.
 */
public class SyncBatchNorm extends BatchNormalization {

    /** For JSON. */
    public SyncBatchNorm() {}

    /** Whether {@link #of} can make this layer synchronous (DL4J's fixed gamma and beta are not supported). */
    public static boolean convertible(BatchNormalization bn) {
        return (bn.getClass() == BatchNormalization.class || bn.getClass() == BatchNormKernel.class)
                && !bn.isLockGammaBeta();
    }

    /** The same layer configuration, synchronized (on the fused kernel when {@code bn} is on it). */
    public static SyncBatchNorm of(BatchNormalization bn) {
        if (!convertible(bn)) {
            throw new IllegalArgumentException(
                    "only a plain BatchNormalization with learned gamma and beta can be synchronized: " + bn);
        }
        return BatchNormKernel.copyInto(
                bn.clone(), bn instanceof BatchNormKernel ? new SyncBatchNormKernel() : new SyncBatchNorm());
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
                new SyncBatchNormLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public SyncBatchNorm clone() {
        return (SyncBatchNorm) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SyncBatchNorm && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof SyncBatchNorm;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 1;
    }

    @Override
    public String toString() {
        return "Sync" + super.toString();
    }
}
