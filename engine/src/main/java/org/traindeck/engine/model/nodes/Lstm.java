package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;

/** lstm: a sequence in; every step's output, or only the last step's as a vector ({@code returnSequences: false}). */
public final class Lstm implements LayerKind {

    @Override
    public String type() {
        return "lstm";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        Recurrent.requireFeatures(inputs.get(0));
        Layer lstm = cell(o.integer("units"));
        return Built.layer(o.bool("returnSequences") ? lstm : new LastTimeStep(lstm));
    }

    /** The LSTM both recurrent kinds use: Keras' defaults (tanh, sigmoid gates). */
    static LSTM cell(int units) {
        return new LSTM.Builder()
                .nOut(units)
                .activation(Activation.TANH)
                .gateActivationFunction(Activation.SIGMOID)
                .dataFormat(RNNFormat.NCW)
                .weightInit(WeightInit.XAVIER)
                .build();
    }
}
