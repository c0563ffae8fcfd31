package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;

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
        return Built.layer(new GlobalPoolLayer("max".equals(o.string("mode")) ? PoolingType.MAX : PoolingType.AVG));
    }

    /**
     * DL4J's global pooling with the output type it should report: its own says a pooled sequence is still a
     * sequence, so the layers after it were sized for one and a class head was refused, while it computes a vector.
     */
    public static final class GlobalPoolLayer extends GlobalPoolingLayer {

        public GlobalPoolLayer() {}

        public GlobalPoolLayer(PoolingType poolingType) {
            super(poolingType);
        }

        @Override
        public InputType getOutputType(int layerIndex, InputType inputType) {
            if (inputType instanceof InputType.InputTypeRecurrent sequence && isCollapseDimensions()) {
                return InputType.feedForward(sequence.getSize());
            }
            return super.getOutputType(layerIndex, inputType);
        }
    }
}
