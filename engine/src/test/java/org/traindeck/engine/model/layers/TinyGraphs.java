package org.traindeck.engine.model.layers;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** Small graphs for the layer tests: the layers under test in a chain, then an output layer. */
final class TinyGraphs {

    static final long SEED = 12345;

    private TinyGraphs() {}

    static ComputationGraphConfiguration.GraphBuilder base(DataType type, IUpdater updater, InputType input) {
        return new NeuralNetConfiguration.Builder()
                .seed(SEED)
                .dataType(type)
                .updater(updater)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(input);
    }

    /** One layer, then the output layer its output type calls for. */
    static ComputationGraph withOutput(DataType type, IUpdater updater, InputType input, Layer layer) {
        boolean sequence = layer.getOutputType(0, input) instanceof InputType.InputTypeRecurrent;
        return chain(type, updater, input, sequence, 2, layer);
    }

    /** The layers in order, then a softmax output: per time step when {@code sequenceOutput}. */
    static ComputationGraph chain(
            DataType type, IUpdater updater, InputType input, boolean sequenceOutput, int classes, Layer... layers) {
        ComputationGraphConfiguration.GraphBuilder b = base(type, updater, input);
        String previous = "in";
        for (int i = 0; i < layers.length; i++) {
            b.addLayer("l" + i, layers[i], previous);
            previous = "l" + i;
        }
        Layer out = sequenceOutput
                ? new RnnOutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                        .activation(Activation.SOFTMAX)
                        .nOut(classes)
                        .build()
                : new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                        .activation(Activation.SOFTMAX)
                        .nOut(classes)
                        .build();
        b.addLayer("out", out, previous).setOutputs("out");
        ComputationGraph graph = new ComputationGraph(b.build());
        graph.init();
        return graph;
    }
}
