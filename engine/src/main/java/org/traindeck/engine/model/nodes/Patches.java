package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.embedding.PatchEmbeddingKernel;
import org.traindeck.engine.model.layers.PatchEmbedding;

/**
 * patches: an image cut into size×size patches, each projected to a vector, with learned positions (and a class token).
 * TrainDeck's kernel ({@link PatchEmbeddingKernel}) unless the node or the backend asks for the SameDiff layer.
 */
public final class Patches implements LayerKind {

    @Override
    public String type() {
        return "patches";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = Shapes.require(o, inputs, InputType.Type.CNN, "an image", Shapes.toImage(inputs.get(0)));
        InputType.InputTypeConvolutional image = (InputType.InputTypeConvolutional) in;
        int size = o.integer("size");
        if (image.getHeight() % size != 0 || image.getWidth() % size != 0) {
            throw new ShapeError("cuts " + size + "×" + size + " patches, but " + size + " does not divide the image's "
                    + image.getHeight() + "×" + image.getWidth()
                    + ": use a size that divides both, or crop or pad the images");
        }
        return Built.layer(
                o.ownKernel()
                        ? new PatchEmbeddingKernel(size, o.integer("units"), o.bool("classToken"))
                        : new PatchEmbedding(size, o.integer("units"), o.bool("classToken")));
    }
}
