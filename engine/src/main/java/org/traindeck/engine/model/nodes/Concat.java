package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.conv.ConcatKernel;

/**
 * Joins inputs along the channels (features); every other dimension must agree. On TrainDeck's kernel
 * ({@link ConcatKernel}) unless the node or the backend asks for DL4J's MergeVertex.
 */
public final class Concat implements LayerKind {

    @Override
    public String type() {
        return "concat";
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
        InputType first = inputs.get(0);
        if (first.getType() == InputType.Type.CNN3D) {
            throw new ShapeError(
                    "cannot join volumes: DL4J 1.0.0-M2.1's MergeVertex fails in backprop on 3D feature maps. "
                            + "Use \"add\" for the skip connection (project the channels to match with a 1×1×1 conv3d)");
        }
        for (int i = 1; i < inputs.size(); i++) {
            InputType other = inputs.get(i);
            if (other.getType() != first.getType() || !spatial(other).equals(spatial(first))) {
                throw new ShapeError(
                        "joins inputs along the channels, so the rest of their shapes must agree, but gets "
                                + Shapes.describe(first) + " and " + Shapes.describe(other));
            }
        }
        return Built.vertex(o.ownKernel() ? new ConcatKernel() : new MergeVertex());
    }

    private static String spatial(InputType t) {
        return switch (t.getType()) {
            case CNN -> {
                InputType.InputTypeConvolutional c = (InputType.InputTypeConvolutional) t;
                yield c.getHeight() + "x" + c.getWidth();
            }
            case RNN -> String.valueOf(((InputType.InputTypeRecurrent) t).getTimeSeriesLength());
            default -> "";
        };
    }
}
