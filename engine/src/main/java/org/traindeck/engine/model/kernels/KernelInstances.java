package org.traindeck.engine.model.kernels;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.ParamInitializer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.ndarray.INDArray;

/** What every kernel configuration's {@code instantiate} does once it has made its run-time layer, as DL4J's own do. */
public final class KernelInstances {

    private KernelInstances() {}

    /** Gives {@code layer} its place in the network, its listeners and its parameters (views of the network's). */
    public static <L extends Layer> L wire(
            L layer,
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            ParamInitializer initializer) {
        layer.setListeners(listeners);
        layer.setIndex(layerIndex);
        layer.setParamsViewArray(layerParamsView);
        layer.setParamTable(initializer.init(conf, layerParamsView, initializeParams));
        layer.setConf(conf);
        return layer;
    }

    /**
     * Copies every instance field that {@code top} and its superclasses declare from {@code from} to {@code to}: a DL4J
     * configuration onto the kernel's subclass of it, so that the kernel's JSON, equality and fallback are DL4J's.
     */
    public static <T> T copyFields(Class<?> top, Object from, T to) {
        try {
            for (Class<?> c = top; c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers())) {
                        f.setAccessible(true);
                        f.set(to, f.get(from));
                    }
                }
            }
        } catch (IllegalAccessException | RuntimeException e) {
            throw new IllegalStateException("cannot copy DL4J's " + top.getSimpleName() + " configuration", e);
        }
        return to;
    }
}
