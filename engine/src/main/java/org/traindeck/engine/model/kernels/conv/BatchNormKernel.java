package org.traindeck.engine.model.kernels.conv;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A BatchNorm node on TrainDeck's fused kernel ({@link BatchNormKernelLayer}): DL4J's BatchNormalization
 * configuration unchanged (options, JSON fields, parameters gamma, beta, mean and the variance or log10 deviation,
 * their updaters and the running statistics' NoOp updates), so a network or checkpoint of either loads into the
 * other. Only the training-time computation of float32 images and feature rows differs; the rest is DL4J's.
 */
public class BatchNormKernel extends BatchNormalization {

    /** For JSON. */
    public BatchNormKernel() {}

    /** Whether {@link #of} takes this configuration (DL4J's fixed gamma and beta stay DL4J's). */
    public static boolean convertible(BatchNormalization bn) {
        return bn.getClass() == BatchNormalization.class && !bn.isLockGammaBeta();
    }

    /** The same layer configuration on the kernel. */
    public static BatchNormKernel of(BatchNormalization bn) {
        if (!convertible(bn)) {
            throw new IllegalArgumentException(
                    "only a plain BatchNormalization with learned gamma and beta runs on the kernel: " + bn);
        }
        return copyInto(bn.clone(), new BatchNormKernel());
    }

    /** Copies every field DL4J's BatchNormalization and its superclasses declare (into a kernel or a synchronized one). */
    static <T extends BatchNormalization> T copyInto(BatchNormalization from, T to) {
        try {
            for (Class<?> c = BatchNormalization.class; c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers())) {
                        f.setAccessible(true);
                        f.set(to, f.get(from));
                    }
                }
            }
        } catch (IllegalAccessException | RuntimeException e) {
            throw new IllegalStateException("cannot copy DL4J's BatchNormalization configuration", e);
        }
        return to;
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
                new BatchNormKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public BatchNormKernel clone() {
        return (BatchNormKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BatchNormKernel && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof BatchNormKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 2;
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString();
    }
}
