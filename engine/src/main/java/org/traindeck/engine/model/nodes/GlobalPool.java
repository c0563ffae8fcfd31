package org.traindeck.engine.model.nodes;

import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;

import java.util.List;

/** The average or maximum over every position of a sequence, image or volume: one vector per sample. */
public final class GlobalPool implements LayerKind {

    @Override
    public String type() {
        return "globalPool";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        if (inputs.get(0).getType() == InputType.Type.FF) {
            throw new ShapeError("pools over positions, but its input is already a vector: remove it");
        }
        GlobalPoolingLayer layer = new GlobalPoolingLayer.Builder("max".equals(o.string("mode")) ? PoolingType.MAX : PoolingType.AVG).build();
        if (inputs.get(0) instanceof InputType.InputTypeRecurrent sequence) {
            // DL4J M2.1 types a pooled sequence as the sequence itself, but its activations are [batch, features]
            return new Built(layer, null, in -> InputType.feedForward(sequence.getSize()));
        }
        return Built.layer(layer);
    }
}
