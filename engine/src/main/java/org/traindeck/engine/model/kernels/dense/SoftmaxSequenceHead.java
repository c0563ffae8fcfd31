package org.traindeck.engine.model.kernels.dense;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.kernels.LayerSettings;

/**
 * DL4J's {@link RnnOutputLayer} (dense to the classes, softmax, cross-entropy at every step of a sequence) computed by
 * TrainDeck's CPU kernel ({@link SoftmaxSequenceHeadLayer}). It is the same configuration, copied field by field from
 * the RnnOutputLayer it stands for (parameters W [in, out] and b, their layouts, updater and regularisation), so a
 * network or checkpoint of either loads into the other.
 */
public class SoftmaxSequenceHead extends RnnOutputLayer {

    /** For JSON. */
    public SoftmaxSequenceHead() {}

    /** The kernel for {@code head}, which must be a softmax with (unweighted) cross-entropy on NCW sequences. */
    public SoftmaxSequenceHead(RnnOutputLayer head) {
        if (!computes(head)) {
            throw new IllegalArgumentException(
                    "SoftmaxSequenceHead computes a softmax with unweighted cross-entropy on [minibatch,"
                            + " features, time] sequences, not " + head);
        }
        LayerSettings.copy(head, this);
        lossFn = head.getLossFn();
        hasBias = head.hasBias();
        setRnnDataFormat(head.getRnnDataFormat());
    }

    /** Whether the kernel computes {@code head}. */
    public static boolean computes(RnnOutputLayer head) {
        return head.getActivationFn() instanceof ActivationSoftmax
                && head.getLossFn() instanceof LossMCXENT loss
                && loss.getWeights() == null
                && head.getRnnDataFormat() == RNNFormat.NCW;
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
                new SoftmaxSequenceHeadLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SoftmaxSequenceHead && super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    @Override
    public String toString() {
        return "SoftmaxSequenceHead(" + super.toString() + ")";
    }
}
