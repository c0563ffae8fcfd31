package org.traindeck.engine.model.layers;

import java.util.Map;
import java.util.Objects;
import org.deeplearning4j.nn.api.MaskState;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.SDLayerParams;
import org.nd4j.autodiff.samediff.SDIndex;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Sequences [mb, F, T] to feed-forward [mb, F] by keeping time step 0: the class token of a ViT, for its head.
 * The counterpart of DL4J's {@code LastTimeStep}.
 */
public class FirstTimeStep extends SameDiffBackedLayer {

    public FirstTimeStep() {}

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        if (!(inputType instanceof InputType.InputTypeRecurrent sequence) || sequence.getFormat() != RNNFormat.NCW) {
            throw refuse(
                    getLayerName(),
                    "takes sequences [minibatch, features, time] (InputType.recurrent, NCW), got "
                            + describe(inputType));
        }
        return InputType.feedForward(sequence.getSize());
    }

    @Override
    public void defineParameters(SDLayerParams params) {
        // no parameters
    }

    @Override
    public void initializeParameters(Map<String, INDArray> params) {
        // no parameters
    }

    @Override
    public SDVariable defineLayer(SameDiff sd, SDVariable input, Map<String, SDVariable> params, SDVariable mask) {
        return input.get(SDIndex.all(), SDIndex.all(), SDIndex.point(0));
    }

    @Override
    public Pair<INDArray, MaskState> feedForwardMaskArray(
            INDArray maskArray, MaskState currentMaskState, int minibatchSize) {
        // one step per example is left: a per-step mask no longer applies
        return new Pair<>(null, currentMaskState);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FirstTimeStep && super.equals(o);
    }

    @Override
    public int hashCode() {
        return Objects.hash(getClass(), getLayerName());
    }

    @Override
    public String toString() {
        return "FirstTimeStep(" + (getLayerName() == null ? "" : getLayerName()) + ")";
    }
}
