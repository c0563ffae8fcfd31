package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.embedding.PatchEmbedding3DKernel;
import org.traindeck.engine.model.layers.PatchEmbedding3D;

/**
 * patches3d: a volume cut into size×size×size patches, each projected to a vector, with learned 3D positions (one per
 * patch). TrainDeck's kernel ({@link PatchEmbedding3DKernel}, with {@code recompute} if asked) unless the node or the
 * backend asks for the SameDiff layer.
 */
public final class Patches3d implements LayerKind {

    @Override
    public String type() {
        return "patches3d";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = Shapes.require(
                o, inputs, InputType.Type.CNN3D, "a volume", "patches3d cuts volumes; \"patches\" cuts images");
        InputType.InputTypeConvolutional3D v = (InputType.InputTypeConvolutional3D) in;
        int size = o.integer("size");
        if (v.getDepth() % size != 0 || v.getHeight() % size != 0 || v.getWidth() % size != 0) {
            throw new ShapeError("cuts " + size + "×" + size + "×" + size + " patches, but " + size
                    + " does not divide the volume's " + v.getDepth() + "×" + v.getHeight() + "×" + v.getWidth()
                    + ": use a size that divides all three, or crop or pad the volumes");
        }
        int units = o.integer("units");
        return Built.layer(
                o.ownKernel()
                        ? new PatchEmbedding3DKernel(size, units, o.bool("recompute"))
                        : new PatchEmbedding3D(size, units));
    }
}
