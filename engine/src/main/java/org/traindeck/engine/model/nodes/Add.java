package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.conv.AddKernel;

/**
 * The element-wise sum of inputs of one shape: a residual connection, on TrainDeck's kernel ({@link AddKernel}) unless
 * the model or the backend asks for DL4J's ElementWiseVertex.
 */
public final class Add implements LayerKind {

    @Override
    public String type() {
        return "add";
    }

    @Override
    public int minInputs() {
        return 2;
    }

    @Override
    public int maxInputs() {
        return 64;
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        String first = Shapes.dims(inputs.get(0));
        for (int i = 1; i < inputs.size(); i++) {
            if (inputs.get(i).getType() != inputs.get(0).getType()
                    || !Shapes.dims(inputs.get(i)).equals(first)) {
                throw new ShapeError("adds inputs of one shape, but gets " + Shapes.describe(inputs.get(0)) + " and "
                        + Shapes.describe(inputs.get(i))
                        + ": project one of them (a dense or 1×1 conv layer) to the other's shape");
            }
        }
        return Built.vertex(o.ownKernel() ? new AddKernel() : new ElementWiseVertex(ElementWiseVertex.Op.Add));
    }
}
