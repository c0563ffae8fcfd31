package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DepthwiseConvolution2D;
import org.nd4j.linalg.activations.Activation;
import org.traindeck.engine.model.graph.Activations;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.Shapes;

/** depthwiseConv2d: its own filters for each input channel; the output has channels × depthMultiplier channels. */
public final class DepthwiseConvolution implements LayerKind {

    @Override
    public String type() {
        return "depthwiseConv2d";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = Spatial.require(o, inputs, 2);
        int[] kernel = o.size("kernel", 2);
        int[] dilation = o.size("dilation", 2);
        String padding = o.string("padding");
        Shapes.windowFits("kernel", kernel, dilation, Spatial.extent(in), Spatial.axes(2), !"valid".equals(padding));
        Activation act = o.activation("activation");
        int multiplier = o.integer("depthMultiplier");
        // DL4J takes nOut at face value: it must be the input's channels × the multiplier
        long channels = Shapes.channels(in) * multiplier;
        return Built.layer(new DepthwiseConvolution2D.Builder(kernel)
                .stride(o.size("stride", 2))
                .dilation(dilation)
                .depthMultiplier(multiplier)
                .nOut(Math.toIntExact(channels))
                .convolutionMode(Spatial.mode(padding))
                .activation(act)
                .weightInit(Activations.initFor(act))
                .hasBias(o.bool("bias"))
                .build());
    }
}
