package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;
import org.traindeck.engine.model.kernels.embedding.TokenEmbedding;

/**
 * embedding: a learned vector per token id; token ids [steps] in, a sequence [units, steps] out. TrainDeck's kernel
 * ({@link TokenEmbedding}) unless the node or the backend asks for DL4J's EmbeddingSequenceLayer.
 */
public final class Embedding implements LayerKind {

    @Override
    public String type() {
        return "embedding";
    }

    @Override
    public boolean readsTokenIds() {
        return true;
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        if (!(inputs.get(0) instanceof TokenSequence tokens)) {
            throw new ShapeError(
                    "looks up a vector per token id, so it takes token ids (a text or token source), but gets "
                            + Shapes.describe(inputs.get(0))
                            + ": put it first, on the data, or use \"dense\" on features");
        }
        EmbeddingSequenceLayer.Builder b = new EmbeddingSequenceLayer.Builder()
                .nOut(o.integer("units"))
                .outputDataFormat(RNNFormat.NCW)
                .hasBias(false);
        // a fixed length is checked against every batch; an unknown one is taken from each batch
        if (tokens.steps() > 0) {
            return Built.layer(kernel(
                    o,
                    b.inputLength(Math.toIntExact(tokens.steps()))
                            .inferInputLength(false)
                            .build()));
        }
        int units = o.integer("units");
        // DL4J would report its default length, 1, for a length it only learns from the data
        return new Built(
                kernel(o, b.inferInputLength(true).build()), null, in -> InputType.recurrent(units, -1, RNNFormat.NCW));
    }

    private static EmbeddingSequenceLayer kernel(NodeOptions o, EmbeddingSequenceLayer layer) {
        return o.ownKernel() && TokenEmbedding.computes(layer) ? new TokenEmbedding(layer) : layer;
    }
}
