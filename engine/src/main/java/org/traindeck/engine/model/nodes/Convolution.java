package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.nd4j.linalg.activations.Activation;
import org.traindeck.engine.model.graph.Activations;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.conv.Conv3DKernel;
import org.traindeck.engine.model.kernels.conv.ConvKernel;

/**
 * conv1d, conv2d and conv3d: one rule, over a sequence, an image or a volume. With {@code "recompute": true} (conv2d
 * and conv3d) the layer keeps nothing of its forward pass but its input ({@link RecomputedConvolution2D}). A conv2d
 * or conv3d at stride 1 with relu or no activation runs on TrainDeck's kernel ({@link ConvKernel}, {@link
 * Conv3DKernel}) unless the node ({@code "implementation": "dl4j"}) or the backend asks for DL4J's layer.
 */
public final class Convolution implements LayerKind {

    private final int dims;

    public Convolution(int dims) {
        this.dims = dims;
    }

    @Override
    public String type() {
        return "conv" + dims + "d";
    }

    /** conv2d's and conv3d's option naming who computes it ("kernel" is its window size). */
    public static final String IMPLEMENTATION = "implementation";

    private static boolean ownKernel(NodeOptions o) {
        return o.kernels().kernelFor(o.has(IMPLEMENTATION) ? o.string(IMPLEMENTATION) : null);
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = Spatial.require(o, inputs, dims);
        int[] kernel = o.size("kernel", dims);
        int[] stride = o.size("stride", dims);
        int[] dilation = o.size("dilation", dims);
        String padding = o.string("padding");
        Shapes.windowFits("kernel", kernel, dilation, Spatial.extent(in), Spatial.axes(dims), !"valid".equals(padding));
        ConvolutionMode mode = Spatial.mode(padding);
        Activation act = o.activation("activation");
        int filters = o.integer("filters");
        Layer layer = switch (dims) {
            case 1 ->
                new Convolution1DLayer.Builder()
                        .kernelSize(kernel[0])
                        .stride(stride[0])
                        .dilation(dilation[0])
                        .nOut(filters)
                        .convolutionMode(mode)
                        .rnnDataFormat(RNNFormat.NCW)
                        .activation(act)
                        .weightInit(Activations.initFor(act))
                        .hasBias(o.bool("bias"))
                        .build();
            case 2 -> {
                ConvolutionLayer.Builder b = new ConvolutionLayer.Builder(kernel)
                        .stride(stride)
                        .dilation(dilation)
                        .nOut(filters)
                        .convolutionMode(mode)
                        .activation(act)
                        .weightInit(Activations.initFor(act))
                        .hasBias(o.bool("bias"));
                yield o.bool("recompute") ? new RecomputedConvolution2D(b) : ConvKernel.where(ownKernel(o), b.build());
            }
            default -> {
                Convolution3D.Builder b = new Convolution3D.Builder(kernel[0], kernel[1], kernel[2])
                        .stride(stride)
                        .dilation(dilation)
                        .nOut(filters)
                        .convolutionMode(mode)
                        .dataFormat(Convolution3D.DataFormat.NCDHW)
                        .activation(act)
                        .weightInit(Activations.initFor(act))
                        .hasBias(o.bool("bias"));
                yield o.bool("recompute")
                        ? new RecomputedConvolution3D(b)
                        : Conv3DKernel.where(ownKernel(o), b.build());
            }
        };
        return Built.layer(layer);
    }
}
