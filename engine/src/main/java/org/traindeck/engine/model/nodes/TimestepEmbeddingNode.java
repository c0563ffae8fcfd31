package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.layers.TimestepEmbedding;

/** timestepEmbedding: a diffusion timestep [1] → sinusoidal features → dense → SiLU → dense [units], as DiT's. */
public final class TimestepEmbeddingNode implements LayerKind {

    @Override
    public String type() {
        return "timestepEmbedding";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = inputs.get(0);
        if (!(in instanceof InputType.InputTypeFeedForward ff) || ff.getSize() != 1) {
            throw new ShapeError("embeds one timestep per sample, [1] (a diffusion model's \"timestep\"), but gets "
                    + Shapes.describe(in));
        }
        int frequencies = o.integer("frequencies");
        if (frequencies % 2 != 0) {
            throw new ShapeError("frequencies is " + frequencies + ": give an even number (half cosines, half sines)");
        }
        return Built.layer(new TimestepEmbedding(frequencies, o.integer("units")));
    }
}
