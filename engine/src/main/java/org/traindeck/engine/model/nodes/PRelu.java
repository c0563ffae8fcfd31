package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.PReLULayer;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;

/** prelu: max(0, x) + slope × min(0, x), with a learned slope for every value of a sample (DL4J needs its shape). */
public final class PRelu implements LayerKind {

    @Override
    public String type() {
        return "prelu";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        if (o.has("sharedAxes")) {
            // reproduced: one slope per channel of an image (height and width shared) fails in prelu_bp, "Op validation
            // failed"
            throw new ShapeError(
                    "cannot share slopes (\"sharedAxes\"): DL4J 1.0.0-M2.1's PReLULayer fails in backprop when slopes are "
                            + "shared (its prelu_bp op: \"Op validation failed\"). Leave \"sharedAxes\" out for a slope per value, "
                            + "or use \"activation\" with \"leakyrelu\" for one fixed slope");
        }
        InputType in = inputs.get(0);
        if (in instanceof TokenSequence) {
            throw new ShapeError("takes features but gets " + Shapes.describe(in) + ": add an \"embedding\" before it");
        }
        return Built.layer(new PReLULayer.Builder().inputShape(sampleShape(in)).build());
    }

    /** One sample's shape as the layer's arrays hold it, channels first. */
    private static long[] sampleShape(InputType in) {
        return switch (in.getType()) {
            case FF -> new long[] {((InputType.InputTypeFeedForward) in).getSize()};
            case RNN -> {
                InputType.InputTypeRecurrent r = (InputType.InputTypeRecurrent) in;
                if (r.getTimeSeriesLength() <= 0) {
                    throw new ShapeError("needs a sequence of known length (a slope per value) but gets "
                            + Shapes.describe(in) + ": use \"activation\" with \"leakyrelu\" instead");
                }
                yield new long[] {r.getSize(), r.getTimeSeriesLength()};
            }
            case CNN -> {
                InputType.InputTypeConvolutional c = (InputType.InputTypeConvolutional) in;
                yield new long[] {c.getChannels(), c.getHeight(), c.getWidth()};
            }
            case CNN3D -> {
                InputType.InputTypeConvolutional3D c = (InputType.InputTypeConvolutional3D) in;
                yield new long[] {c.getChannels(), c.getDepth(), c.getHeight(), c.getWidth()};
            }
            case CNNFlat -> new long[] {in.arrayElementsPerExample()};
        };
    }
}
