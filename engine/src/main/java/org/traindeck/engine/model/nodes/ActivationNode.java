package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.kernels.conv.ReluKernel;

/** A function applied element by element; a plain relu on TrainDeck's kernel ({@link ReluKernel}) where kernels are used. */
public final class ActivationNode implements LayerKind {

    @Override
    public String type() {
        return "activation";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        ActivationLayer layer = new ActivationLayer.Builder()
                .activation(o.activation("function"))
                .build();
        return Built.layer(o.ownKernel() && ReluKernel.convertible(layer) ? ReluKernel.of(layer) : layer);
    }
}
