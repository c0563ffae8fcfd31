package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;
import org.traindeck.engine.model.kernels.transformer.TransformerBlock;

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
        long conditionWidth = o.has("condition") ? condition(inputs.get(1)) : 0;
        boolean context = o.has("context");
        if (context) {
            context(inputs.get(inputs.size() - 1), width);
        }
        return Built.layer(new TransformerBlock(
                width,
                hidden(o, width),
                heads,
                o.bool("causal"),
                o.number("dropout"),
                o.bool("recompute"),
                conditionWidth,
                context));
    }

    /** A condition's features: one vector per sample. */
    public static long condition(InputType in) {
        if (!(in instanceof InputType.InputTypeFeedForward ff) || ff.getSize() <= 0) {
            throw new ShapeError(
                    "condition",
                    "is conditioned on one vector per sample [features] (such as a timestepEmbedding's, or a dense"
                            + " over it), but its condition gives " + Shapes.describe(in)
                            + (in.getType() == InputType.Type.RNN
                                    ? ": pool the sequence first (a globalPool or firstToken node)"
                                    : ": flatten it or pool it to a vector first"));
        }
        return ff.getSize();
    }

    /** Checks that context tokens are a sequence of vectors as wide as the layer. */
    public static void context(InputType in, long width) {
        if (in instanceof TokenSequence) {
            throw new ShapeError(
                    "context",
                    "attends to token ids: add an \"embedding\" of " + width + " units and name it as the context");
        }
        if (!(in instanceof InputType.InputTypeRecurrent r) || r.getSize() != width) {
            throw new ShapeError(
                    "context",
                    "attends to context tokens [steps, " + width + "] as wide as its own tokens, but its context gives "
                            + Shapes.describe(in) + ": project the context to " + width
                            + " features first (a dense node of " + width + " units; for images or volumes, patches"
                            + " with \"units\": " + width + ")");
        }
    }

    /** The MLP's hidden units: "hidden" when given, else mlpRatio times the width (as the vit and gpt shorthands round it). */
    public static long hidden(NodeOptions o, long width) {
        return o.has("hidden") ? o.integer("hidden") : Math.max(1, Math.round(width * o.number("mlpRatio")));
    }
}
