package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.dropout.SpatialDropout;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;

/** dropout (single units) and spatialDropout (whole channels), while training only. */
public final class Dropout implements LayerKind {

    private final boolean spatial;

    public Dropout(boolean spatial) {
        this.spatial = spatial;
    }

    @Override
    public String type() {
        return spatial ? "spatialDropout" : "dropout";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        double rate = o.number("rate");
        if (!spatial) {
            // DL4J takes the probability of keeping a unit
            return Built.layer(new DropoutLayer.Builder(1 - rate).build());
        }
        if (inputs.get(0).getType() == InputType.Type.FF) {
            throw new ShapeError(
                    "drops whole channels of an image, volume or sequence, but gets a vector: use \"dropout\"");
        }
        return Built.layer(
                new DropoutLayer.Builder().dropOut(new SpatialDropout(1 - rate)).build());
    }
}
