package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;
import org.traindeck.engine.model.kernels.embedding.PositionEmbeddingKernel;
import org.traindeck.engine.model.layers.PositionEmbedding;

/**
 * positionEmbedding: adds a learned vector per position of a sequence of known length (GPT's, after its token embedding),
 * optionally followed by dropout. TrainDeck's kernel ({@link PositionEmbeddingKernel}, the dropout fused in) unless the
 * node or the backend asks for the SameDiff layer.
 */
public final class PositionEmbeddingNode implements LayerKind {

    @Override
    public String type() {
        return "positionEmbedding";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = inputs.get(0);
        if (in instanceof TokenSequence) {
            throw new ShapeError(
                    "adds vectors to a sequence of vectors but gets token ids: add an \"embedding\" first");
        }
        Shapes.require(o, inputs, InputType.Type.RNN, "a sequence [steps, features]", Shapes.toSequence(in));
        long steps = ((InputType.InputTypeRecurrent) in).getTimeSeriesLength();
        if (steps <= 0) {
            throw new ShapeError(
                    "needs the sequence's length, but it is not known here: give the data a fixed context");
        }
        double dropout = o.has("dropout") ? o.number("dropout") : 0;
        if (o.ownKernel()) {
            return Built.layer(new PositionEmbeddingKernel(steps, 0, dropout));
        }
        if (dropout > 0) {
            throw new IllegalStateException(
                    "a positionEmbedding with dropout is spelled out before its layer is built");
        }
        return Built.layer(new PositionEmbedding(steps));
    }
}
