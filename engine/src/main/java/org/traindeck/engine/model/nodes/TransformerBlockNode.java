package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;
import org.traindeck.engine.model.kernels.TransformerBlock;

/**
 * transformerBlock: a pre-norm transformer block (attention and a GELU MLP, each behind a layer norm and added back) on
 * TrainDeck's fused CPU kernel. With "kernel": "dl4j" the compiler spells it out as reference nodes before this runs
 * (see ReferenceBlock).
 */
public final class TransformerBlockNode implements LayerKind {

    @Override
    public String type() {
        return "transformerBlock";
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
        return Built.layer(new TransformerBlock(
                width, hidden(o, width), heads, o.bool("causal"), o.number("dropout"), o.bool("recompute")));
    }

    /** The MLP's hidden units: "hidden" when given, else mlpRatio times the width (as the vit and gpt shorthands round it). */
    public static long hidden(NodeOptions o, long width) {
        return o.has("hidden") ? o.integer("hidden") : Math.max(1, Math.round(width * o.number("mlpRatio")));
    }
}
