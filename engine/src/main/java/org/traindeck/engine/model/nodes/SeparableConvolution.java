package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.SeparableConvolution2D;
import org.nd4j.linalg.activations.Activation;
import org.traindeck.engine.model.graph.Activations;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;

/** separableConv2d: a depthwise convolution then a 1×1 one over an image (Xception's, MobileNet's building block). */
public final class SeparableConvolution implements LayerKind {

    @Override
    public String type() {
        return "separableConv2d";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = Spatial.require(o, inputs, 2);
        if (Shapes.channels(in) == 1) {
            // reproduced with every stride, padding and multiplier: DL4J's sconv2d op cannot take one input channel
            throw new ShapeError(
                    "cannot take an image of 1 channel: DL4J 1.0.0-M2.1's SeparableConvolution2D fails on it "
                            + "(its sconv2d op: \"NDArray::reshapei: bad input shape!\"). On one channel it is a plain convolution "
                            + "anyway: use \"conv2d\" here, or put a conv2d before it");
        }
        int[] kernel = o.size("kernel", 2);
        int[] dilation = o.size("dilation", 2);
        String padding = o.string("padding");
        Shapes.windowFits("kernel", kernel, dilation, Spatial.extent(in), Spatial.axes(2), !"valid".equals(padding));
        Activation act = o.activation("activation");
        return Built.layer(new SeparableConvolution2D.Builder(kernel)
                .stride(o.size("stride", 2))
                .dilation(dilation)
                .depthMultiplier(o.integer("depthMultiplier"))
                .nOut(o.integer("filters"))
                .convolutionMode(Spatial.mode(padding))
                .activation(act)
                .weightInit(Activations.initFor(act))
                .hasBias(o.bool("bias"))
                .build());
    }
}
