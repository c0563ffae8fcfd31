package org.traindeck.engine.model.kernels.dense;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.layers.FirstTimeStep;

/**
 * {@link FirstTimeStep} (a ViT's class token for its head) computed by a plain copy ({@link FirstTimeStepKernelLayer})
 * instead of a SameDiff graph, which cost the ViT sample 3.5 ms a step (its forward pass run twice) for a copy of
 * 4,096 floats. The same configuration, no parameters.
 */
public class FirstTimeStepKernel extends FirstTimeStep {

    public FirstTimeStepKernel() {}

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        if (networkDataType != DataType.FLOAT) {
            return super.instantiate(conf, listeners, layerIndex, layerParamsView, initializeParams, networkDataType);
        }
        return KernelInstances.wire(
                new FirstTimeStepKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FirstTimeStepKernel && super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode() + 1;
    }

    @Override
    public String toString() {
        return "FirstTimeStepKernel(" + (getLayerName() == null ? "" : getLayerName()) + ")";
    }
}
