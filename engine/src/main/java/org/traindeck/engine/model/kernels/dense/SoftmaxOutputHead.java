package org.traindeck.engine.model.kernels.dense;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.kernels.LayerSettings;

/**
 * DL4J's {@link OutputLayer} with a softmax and cross-entropy (a classifier's head: dense to the classes, softmax, loss)
 * computed by TrainDeck's CPU kernel ({@link SoftmaxOutputHeadLayer}). It is the same configuration, copied field by
 * field from the OutputLayer it stands for (parameters W [in, out] and b, their layouts, updater and regularisation),
 * so a network or checkpoint of either loads into the other.
 */
public class SoftmaxOutputHead extends OutputLayer {

    /** For JSON. */
    public SoftmaxOutputHead() {}

    /** The kernel for {@code head}, which must be a softmax with (unweighted) cross-entropy. */
    public SoftmaxOutputHead(OutputLayer head) {
        if (!computes(head)) {
            throw new IllegalArgumentException(
                    "SoftmaxOutputHead computes a softmax with unweighted cross-entropy, not " + head);
        }
        LayerSettings.copy(head, this);
        lossFn = head.getLossFn();
        hasBias = head.hasBias();
    }

    /** Whether the kernel computes {@code head}. */
    public static boolean computes(OutputLayer head) {
        return head.getActivationFn() instanceof ActivationSoftmax
                && head.getLossFn() instanceof LossMCXENT loss
                && loss.getWeights() == null;
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
            // the kernel computes in float32; float16 training gets DL4J's layer, with the same parameters
            return super.instantiate(conf, listeners, layerIndex, layerParamsView, initializeParams, networkDataType);
        }
        return KernelInstances.wire(
                new SoftmaxOutputHeadLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SoftmaxOutputHead && super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    @Override
    public String toString() {
        return "SoftmaxOutputHead(" + super.toString() + ")";
    }
}
