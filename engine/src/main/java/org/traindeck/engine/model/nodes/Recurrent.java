package org.traindeck.engine.model.nodes;

import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;

/** What the recurrent kinds share: they read a sequence of feature vectors, not token ids and not images. */
final class Recurrent {

    private Recurrent() {}

    static void requireFeatures(InputType in) {
        if (in instanceof TokenSequence) {
            throw new ShapeError("takes a sequence of feature vectors but gets " + Shapes.describe(in)
                    + ": add an \"embedding\" before it to turn each token id into a vector");
        }
        if (in.getType() != InputType.Type.RNN) {
            String advice = Shapes.toSequence(in);
            throw new ShapeError("takes a sequence [steps, features] but gets " + Shapes.describe(in)
                    + (advice == null ? "" : ": " + advice));
        }
    }
}
