package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.transformer.LayerNormKernel;
import org.traindeck.engine.model.layers.LayerNorm;

/**
 * layerNorm: normalises each sample's features (each step of a sequence, each pixel's channels), with a gain and a bias.
 * TrainDeck's kernel ({@link LayerNormKernel}) unless the node or the backend asks for the SameDiff layer.
 */
public final class LayerNormNode implements LayerKind {

    @Override
    public String type() {
        return "layerNorm";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = inputs.get(0);
        if (in.getType() == InputType.Type.CNN3D || in.getType() == InputType.Type.CNNFlat) {
            throw new ShapeError("normalises vectors, sequences and images, but gets " + Shapes.describe(in));
        }
        double epsilon = o.number("epsilon");
        return Built.layer(o.ownKernel() ? new LayerNormKernel(epsilon) : new LayerNorm(epsilon));
    }
}
