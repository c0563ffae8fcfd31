package org.traindeck.engine.model.kernels;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.ParamInitializer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.ndarray.INDArray;

/** What every kernel configuration's {@code instantiate} does once it has made its run-time layer, as DL4J's own do. */
final class KernelInstances {

    private KernelInstances() {}

    /** Gives {@code layer} its place in the network, its listeners and its parameters (views of the network's). */
    static <L extends Layer> L wire(
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
}
