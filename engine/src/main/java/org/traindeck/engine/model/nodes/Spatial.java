package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;

/** What the 1D, 2D and 3D layer kinds share: which input each takes, and its extent along each axis. */
final class Spatial {

    private Spatial() {}

    static InputType require(NodeOptions o, List<InputType> inputs, int dims) {
        InputType in = inputs.get(0);
        if (in instanceof TokenSequence) {
            throw new ShapeError("takes features but gets " + Shapes.describe(in)
                    + ": add an \"embedding\" first to turn each id into a vector");
        }
        InputType.Type wanted = switch (dims) {
            case 1 -> InputType.Type.RNN;
            case 2 -> InputType.Type.CNN;
            default -> InputType.Type.CNN3D;
        };
        if (in.getType() != wanted) {
            String what = switch (dims) {
                case 1 -> "a sequence [steps, features]";
                case 2 -> "an image";
                default -> "a volume";
            };
            String advice = switch (in.getType()) {
                case CNN -> "use the 2D types (conv2d, maxPool2d, …) on images";
                case CNN3D -> "use the 3D types (conv3d, maxPool3d, …) on volumes";
                case RNN -> "use the 1D types (conv1d, maxPool1d, …) on sequences";
                default -> "\"reshape\" the vector first, or use \"dense\"";
            };
            throw new ShapeError("takes " + what + " but gets " + Shapes.describe(in) + ": " + advice);
        }
        return in;
    }

    /** The input's size along each spatial axis (time; height, width; depth, height, width); -1 when unknown. */
    static long[] extent(InputType in) {
        return switch (in.getType()) {
            case RNN -> new long[] {((InputType.InputTypeRecurrent) in).getTimeSeriesLength()};
            case CNN -> {
                InputType.InputTypeConvolutional c = (InputType.InputTypeConvolutional) in;
                yield new long[] {c.getHeight(), c.getWidth()};
            }
            case CNN3D -> {
                InputType.InputTypeConvolutional3D c = (InputType.InputTypeConvolutional3D) in;
                yield new long[] {c.getDepth(), c.getHeight(), c.getWidth()};
            }
            default -> throw new IllegalArgumentException(in.toString());
        };
    }

    static String[] axes(int dims) {
        return switch (dims) {
            case 1 -> new String[] {"steps"};
            case 2 -> new String[] {"rows", "columns"};
            default -> new String[] {"slices", "rows", "columns"};
        };
    }

    static ConvolutionMode mode(String padding) {
        return switch (padding) {
            case "same" -> ConvolutionMode.Same;
            case "causal" -> ConvolutionMode.Causal;
            default -> ConvolutionMode.Truncate;
        };
    }
}
