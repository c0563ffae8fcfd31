package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * DL4J's {@link CnnLossLayer} with a softmax over the channels and unweighted cross-entropy (a segmentation model's
 * head: a class for every pixel) computed by TrainDeck's kernel ({@link SegmentationSoftmaxHeadLayer}). The same
 * configuration, copied field by field from the layer it stands for; it has no parameters, so networks and
 * checkpoints of either load into the other.
 */
public class SegmentationSoftmaxHead extends CnnLossLayer {

    /** For JSON. */
    public SegmentationSoftmaxHead() {}

    /** The layer on the kernel where {@code own} and it {@link #computes} the head, else the layer itself. */
    public static CnnLossLayer where(boolean own, CnnLossLayer head) {
        return own && computes(head)
                ? KernelInstances.copyFields(CnnLossLayer.class, head, new SegmentationSoftmaxHead())
                : head;
    }

    /** Whether the kernel computes {@code head}: softmax, cross-entropy without class weights, no dropout. */
    public static boolean computes(CnnLossLayer head) {
        return head.getClass() == CnnLossLayer.class
                && head.getActivationFn() instanceof ActivationSoftmax
                && head.getLossFn() instanceof LossMCXENT loss
                && loss.getClass() == LossMCXENT.class
                && loss.getWeights() == null
                && head.getIDropout() == null;
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
                new SegmentationSoftmaxHeadLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SegmentationSoftmaxHead && super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    @Override
    public String toString() {
        return "SegmentationSoftmaxHead(" + super.toString() + ")";
    }
}
