package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.dense.FirstTimeStepKernel;
import org.traindeck.engine.model.layers.FirstTimeStep;

/** firstToken: the first step of a sequence, the class token a ViT's head reads. */
public final class FirstToken implements LayerKind {

    @Override
    public String type() {
        return "firstToken";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        Shapes.require(o, inputs, InputType.Type.RNN, "a sequence [steps, features]", "it picks a step of a sequence");
        return Built.layer(o.ownKernel() ? new FirstTimeStepKernel() : new FirstTimeStep());
    }
}
