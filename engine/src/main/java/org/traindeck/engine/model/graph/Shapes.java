package org.traindeck.engine.model.graph;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;

/** Shapes in the user's words ("an image 16×16×32"), and the checks every layer kind shares. */
public final class Shapes {

    private Shapes() {}

    /**
     * An input type as the messages say it, in the one notation of docs/configs.md#shapes (channels last, time before
     * features): an image height×width×channels, a sequence [steps, features].
     */
    public static String describe(InputType t) {
        if (t instanceof TokenSequence tokens) {
            return "token ids [" + (tokens.steps() > 0 ? tokens.steps() + " steps" : "any length")
                    + "] from a vocabulary of " + tokens.vocabulary();
        }
        return switch (t.getType()) {
            case FF -> "a vector of " + ((InputType.InputTypeFeedForward) t).getSize() + " features";
            case RNN -> {
                InputType.InputTypeRecurrent r = (InputType.InputTypeRecurrent) t;
                yield "a sequence [" + (r.getTimeSeriesLength() > 0 ? r.getTimeSeriesLength() + " steps" : "any length")
                        + ", " + r.getSize() + " features]";
            }
            case CNN -> {
                InputType.InputTypeConvolutional c = (InputType.InputTypeConvolutional) t;
                yield "an image " + c.getHeight() + "×" + c.getWidth() + "×" + c.getChannels();
            }
            case CNN3D -> {
                InputType.InputTypeConvolutional3D c = (InputType.InputTypeConvolutional3D) t;
                yield "a volume " + c.getDepth() + "×" + c.getHeight() + "×" + c.getWidth() + "×" + c.getChannels();
            }
            case CNNFlat -> {
                InputType.InputTypeConvolutionalFlat c = (InputType.InputTypeConvolutionalFlat) t;
                yield "a flattened image " + c.getHeight() + "×" + c.getWidth() + "×" + c.getDepth();
            }
        };
    }

    /**
     * The shape as the summary table prints it, in the notation of docs/configs.md#shapes: [features], [steps,
     * features] ("?" for any length), [h, w, c], [d, h, w, c].
     */
    public static String dims(InputType t) {
        return switch (t.getType()) {
            case FF -> "[" + ((InputType.InputTypeFeedForward) t).getSize() + "]";
            case RNN -> {
                InputType.InputTypeRecurrent r = (InputType.InputTypeRecurrent) t;
                yield "[" + (r.getTimeSeriesLength() > 0 ? r.getTimeSeriesLength() : "?") + ", " + r.getSize() + "]";
            }
            case CNN -> {
                InputType.InputTypeConvolutional c = (InputType.InputTypeConvolutional) t;
                yield "[" + c.getHeight() + ", " + c.getWidth() + ", " + c.getChannels() + "]";
            }
            case CNN3D -> {
                InputType.InputTypeConvolutional3D c = (InputType.InputTypeConvolutional3D) t;
                yield "[" + c.getDepth() + ", " + c.getHeight() + ", " + c.getWidth() + ", " + c.getChannels() + "]";
            }
            case CNNFlat -> "[" + t.arrayElementsPerExample() + "]";
        };
    }

    /** The one input of a single-input node, which must be of {@code type}; {@code what} is how the node says it. */
    public static InputType require(
            NodeOptions o, List<InputType> inputs, InputType.Type type, String what, String advice) {
        InputType in = inputs.get(0);
        if (in.getType() != type) {
            throw new ShapeError("takes " + what + " but gets " + describe(in) + (advice == null ? "" : ": " + advice));
        }
        return in;
    }

    /** Advice for a node that needs an image but gets something else. */
    public static String toImage(InputType in) {
        return switch (in.getType()) {
            case FF -> "use \"dense\" layers on vectors, or \"reshape\" the vector into an image";
            case RNN -> "use \"conv1d\" on sequences";
            case CNN3D -> "use the 3D layer types (conv3d, maxPool3d, …) on volumes";
            default -> null;
        };
    }

    /** Advice for a node that needs a sequence but gets something else. */
    public static String toSequence(InputType in) {
        return switch (in.getType()) {
            case CNN -> "add a \"patches\" node to cut the image into a sequence of patches";
            case FF -> "add a \"reshape\" node to make the vector a sequence (its \"shape\" is [features, steps])";
            default -> null;
        };
    }

    /** The channels (features) of an input with a channel axis: images, volumes, sequences, vectors. */
    public static long channels(InputType t) {
        return switch (t.getType()) {
            case FF -> ((InputType.InputTypeFeedForward) t).getSize();
            case RNN -> ((InputType.InputTypeRecurrent) t).getSize();
            case CNN -> ((InputType.InputTypeConvolutional) t).getChannels();
            case CNN3D -> ((InputType.InputTypeConvolutional3D) t).getChannels();
            case CNNFlat -> ((InputType.InputTypeConvolutionalFlat) t).getDepth();
        };
    }

    /** Checks that a window fits along each spatial dimension (with "valid" padding: no room for it otherwise). */
    public static void windowFits(
            String what, int[] window, int[] dilation, long[] extent, String[] axes, boolean same) {
        if (same) {
            return;
        }
        for (int i = 0; i < window.length; i++) {
            long effective = (long) (window[i] - 1) * (dilation == null ? 1 : dilation[i]) + 1;
            if (extent[i] >= 0 && effective > extent[i]) {
                throw new ShapeError("its " + what + " covers " + effective + " " + axes[i] + " but the input has only "
                        + extent[i] + ": use a smaller " + what
                        + ", \"padding\": \"same\", or remove a down-sampling layer before it");
            }
        }
    }
}
