package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.embedding.ConditionedUnpatch3D;
import org.traindeck.engine.model.kernels.embedding.Unpatch3DKernel;
import org.traindeck.engine.model.layers.Unpatch3D;

/**
 * unpatch3d: tokens [F, T] → a volume [C, d·s, h·s, w·s], each token projected to its size×size×size patch of
 * channels values (the inverse of patches3d). TrainDeck's kernel ({@link Unpatch3DKernel}) unless the node or the
 * backend asks for the SameDiff layer. With a "condition", DiT's final layer ({@link ConditionedUnpatch3D}, own kernel
 * only).
 */
public final class Unpatch3d implements LayerKind {

    @Override
    public String type() {
        return "unpatch3d";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = Shapes.require(
                o,
                inputs,
                InputType.Type.RNN,
                "a token sequence",
                "add a \"patches3d\" node to make tokens of a volume");
        long tokens = ((InputType.InputTypeRecurrent) in).getTimeSeriesLength();
        if (tokens <= 0) {
            throw new ShapeError("needs a sequence of known length (d·h·w tokens), but gets " + Shapes.describe(in));
        }
        int[] grid = o.has("grid") ? o.size("grid", 3) : cube(tokens);
        if ((long) grid[0] * grid[1] * grid[2] != tokens) {
            throw new ShapeError("a grid of " + grid[0] + "×" + grid[1] + "×" + grid[2] + " holds "
                    + (long) grid[0] * grid[1] * grid[2] + " tokens, but the input has " + tokens
                    + ": give \"grid\" as [d, h, w] tokens per axis, whose product is " + tokens);
        }
        int size = o.integer("size");
        int channels = o.integer("channels");
        boolean recompute = o.bool("recompute");
        if (o.has("condition")) {
            if (recompute) {
                throw new ShapeError(
                        "recompute",
                        "applies to an unpatch3d without a condition: DiT's final layer keeps its normalised tokens;"
                                + " leave recompute out here");
            }
            long features = ((InputType.InputTypeRecurrent) in).getSize();
            long conditionWidth = TransformerBlockNode.condition(inputs.get(1));
            return Built.layer(new ConditionedUnpatch3D(size, channels, grid, features, conditionWidth));
        }
        return Built.layer(
                o.ownKernel()
                        ? new Unpatch3DKernel(size, channels, grid, recompute)
                        : new Unpatch3D(size, channels, grid));
    }

    private static int[] cube(long tokens) {
        long side = Math.round(Math.cbrt(tokens));
        if (side * side * side != tokens) {
            throw new ShapeError("cannot tell the token grid: " + tokens + " tokens is not a cube (d = h = w); give "
                    + "\"grid\" as [d, h, w] tokens per axis, e.g. the volume's depth, height and width over the"
                    + " patch size of the patches3d node");
        }
        return new int[] {(int) side, (int) side, (int) side};
    }
}
