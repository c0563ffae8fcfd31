package org.traindeck.engine.model.kernels.conv;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Cnn3DLossLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.lossfunctions.impl.LossMSE;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * DL4J's {@link Cnn3DLossLayer} with an identity activation and unweighted MSE (a volume model's head: reconstruction
 * and diffusion) computed by TrainDeck's kernel ({@link VolumeMseHeadLayer}). The same configuration, copied field by
 * field from the layer it stands for; it has no parameters, so networks and checkpoints of either load into the other.
 */
public class VolumeMseHead extends Cnn3DLossLayer {

    /** For JSON. */
    public VolumeMseHead() {}

    /** The layer on the kernel where {@code own} and it {@link #computes} the head, else the layer itself. */
    public static Cnn3DLossLayer where(boolean own, Cnn3DLossLayer head) {
        return own && computes(head)
                ? KernelInstances.copyFields(Cnn3DLossLayer.class, head, new VolumeMseHead())
                : head;
    }

    /** Whether the kernel computes {@code head}: NCDHW, identity activation, MSE without per-channel weights. */
    public static boolean computes(Cnn3DLossLayer head) {
        return head.getClass() == Cnn3DLossLayer.class
                && head.getDataFormat() == Convolution3D.DataFormat.NCDHW
                && head.getActivationFn() instanceof ActivationIdentity
                && head.getLossFn() instanceof LossMSE loss
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
                new VolumeMseHeadLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VolumeMseHead && super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    @Override
    public String toString() {
        return "VolumeMseHead(" + super.toString() + ")";
    }
}
