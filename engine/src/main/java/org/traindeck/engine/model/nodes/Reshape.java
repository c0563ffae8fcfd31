package org.traindeck.engine.model.nodes;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.graph.ReshapeVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;

/**
 * reshape: the same values per sample (channels first, row by row) in a new shape: [features], [features, steps],
 * [channels, height, width] or [channels, depth, height, width].
 */
public final class Reshape implements LayerKind {

    @Override
    public String type() {
        return "reshape";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = inputs.get(0);
        List<Integer> shape = o.intList("shape");
        String wanted = shape.stream().map(String::valueOf).collect(Collectors.joining(", ", "[", "]"));
        if (in instanceof TokenSequence) {
            throw new ShapeError(
                    "cannot reshape " + Shapes.describe(in) + ": add an \"embedding\" first to make them vectors");
        }
        long have = in.arrayElementsPerExample();
        if (have <= 0) {
            throw new ShapeError("needs a known number of values per sample but gets " + Shapes.describe(in)
                    + ": give the data a fixed length");
        }
        long want = shape.stream().mapToLong(Integer::longValue).reduce(1, (a, b) -> a * b);
        if (want != have) {
            throw new ShapeError("makes " + wanted + " = " + want + " values per sample, but its input "
                    + Shapes.describe(in) + " has " + have + ": choose a shape whose sizes multiply to " + have);
        }
        int[] newShape = new int[shape.size() + 1];
        newShape[0] = -1;
        for (int i = 0; i < shape.size(); i++) {
            newShape[i + 1] = shape.get(i);
        }
        return Built.vertex(new Vertex('c', newShape, null));
    }

    /**
     * DL4J's ReshapeVertex with the output type it should report: its own drops a sequence's length and cannot say a
     * volume (it throws), so every layer after it would be sized from a wrong or missing shape.
     */
    public static final class Vertex extends ReshapeVertex {

        public Vertex(
                @JsonProperty("reshapeOrder") char reshapeOrder,
                @JsonProperty("newShape") int[] newShape,
                @JsonProperty("maskShape") int[] maskShape) {
            super(reshapeOrder, newShape, maskShape);
        }

        @Override
        public InputType getOutputType(int layerIndex, InputType... vertexInputs) {
            int[] s = getNewShape();
            return switch (s.length) {
                case 2 -> InputType.feedForward(s[1]);
                case 3 -> InputType.recurrent(s[1], s[2], RNNFormat.NCW);
                case 4 -> InputType.convolutional(s[2], s[3], s[1]);
                case 5 -> InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, s[2], s[3], s[4], s[1]);
                default ->
                    throw new IllegalStateException("no input type has rank " + s.length + ": " + Arrays.toString(s));
            };
        }

        @Override
        public Vertex clone() {
            // the inherited clone makes a plain ReshapeVertex, which would lose this vertex's output types
            return new Vertex(
                    getReshapeOrder(),
                    getNewShape().clone(),
                    getMaskShape() == null ? null : getMaskShape().clone());
        }
    }
}
