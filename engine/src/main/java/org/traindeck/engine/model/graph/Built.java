package org.traindeck.engine.model.graph;

import java.util.function.Function;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;

/**
 * What a node becomes in the DL4J graph: a layer or a vertex, and, where DL4J cannot tell the output shape itself
 * (a custom rule), that rule.
 */
public record Built(Layer layer, GraphVertex vertex, Function<InputType, InputType> outputRule) {

    public static Built layer(Layer layer) {
        return new Built(layer, null, null);
    }

    public static Built vertex(GraphVertex vertex) {
        return new Built(null, vertex, null);
    }
}
