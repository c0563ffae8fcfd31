package org.traindeck.engine.model.kernels.transformer;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.layers.LayerNorm;

/**
 * {@link LayerNorm} computed by TrainDeck's CPU kernel ({@link LayerNormKernelLayer}) instead of SameDiff. It is the
 * same layer configuration (options, JSON fields, parameters "gain" and "bias" in that order, their updater and
 * regularisation), so a network or checkpoint of either loads into the other; only the computation differs.
 */
public class LayerNormKernel extends LayerNorm {

    /** For JSON. */
    public LayerNormKernel() {}

    public LayerNormKernel(double epsilon) {
        super(epsilon);
    }

    /** @param nIn features; 0 to take them from the input type */
    public LayerNormKernel(long nIn, double epsilon) {
        super(nIn, epsilon);
    }

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        if (networkDataType != DataType.FLOAT) {
            // the kernel computes in float32; float16 training gets the SameDiff layer, with the same parameters
            return super.instantiate(conf, listeners, layerIndex, layerParamsView, initializeParams, networkDataType);
        }
        return KernelInstances.wire(
                new LayerNormKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LayerNormKernel && super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    @Override
    public String toString() {
        return "LayerNormKernel(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "nIn=" + nIn()
                + ", epsilon=" + epsilon() + ")";
    }
}
