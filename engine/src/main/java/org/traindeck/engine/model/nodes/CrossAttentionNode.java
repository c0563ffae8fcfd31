package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;
import org.traindeck.engine.model.kernels.transformer.CrossAttention;

/**
 * crossAttention: multi-head attention from a sequence's steps to a context's tokens, as wide as the sequence; no norm
 * and no residual, as attention. The compiler packs the two into the layer's one input.
 */
public final class CrossAttentionNode implements LayerKind {

    @Override
    public String type() {
        return "crossAttention";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = inputs.get(0);
        if (in instanceof TokenSequence) {
            throw new ShapeError("takes a sequence of vectors but gets token ids: add an \"embedding\" first");
        }
        Shapes.require(o, inputs, InputType.Type.RNN, "a sequence [steps, features]", Shapes.toSequence(in));
        long width = ((InputType.InputTypeRecurrent) in).getSize();
        int heads = o.integer("heads");
        if (width % heads != 0) {
            throw new ShapeError("splits its " + width + " features into " + heads + " heads, but " + heads
                    + " does not divide " + width + ": use a number of heads that divides the width");
        }
        TransformerBlockNode.context(inputs.get(1), width);
        return Built.layer(new CrossAttention(width, heads));
    }
}
