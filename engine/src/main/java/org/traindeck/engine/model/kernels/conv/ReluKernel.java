package org.traindeck.engine.model.kernels.conv;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * An activation node with a plain relu on TrainDeck's kernel ({@link ReluKernelLayer}): DL4J's ActivationLayer
 * configuration unchanged (no parameters), computed by one loop over the array's memory in each direction.
 */
public class ReluKernel extends ActivationLayer {

    /** For JSON. */
    public ReluKernel() {}

    /** Whether {@link #of} takes this layer: max(0, x) with no cap, threshold, slope or dropout. */
    public static boolean convertible(ActivationLayer layer) {
        return layer.getClass() == ActivationLayer.class
                && plainRelu(layer.getActivationFn())
                && layer.getIDropout() == null;
    }

    static boolean plainRelu(IActivation fn) {
        return fn instanceof ActivationReLU r
                && r.getMax() == null
                && (r.getThreshold() == null || r.getThreshold() == 0)
                && (r.getNegativeSlope() == null || r.getNegativeSlope() == 0);
    }

    /** The same layer configuration on the kernel. */
    public static ReluKernel of(ActivationLayer layer) {
        if (!convertible(layer)) {
            throw new IllegalArgumentException("only a plain relu runs on the kernel: " + layer);
        }
        ReluKernel kernel = new ReluKernel();
        try {
            for (Class<?> c = ActivationLayer.class; c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers())) {
                        f.setAccessible(true);
                        f.set(kernel, f.get(layer));
                    }
                }
            }
        } catch (IllegalAccessException | RuntimeException e) {
            throw new IllegalStateException("cannot copy DL4J's ActivationLayer configuration", e);
        }
        return kernel;
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
                new ReluKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public ReluKernel clone() {
        return (ReluKernel) super.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReluKernel && super.equals(o);
    }

    @Override
    protected boolean canEqual(Object other) {
        return other instanceof ReluKernel;
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + 4;
    }

    @Override
    public String toString() {
        return "Kernel" + super.toString();
    }
}
