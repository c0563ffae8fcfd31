package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.Subsampling1DLayer;
import org.deeplearning4j.nn.conf.layers.Subsampling3DLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.conv.MaxPool3DKernel;
import org.traindeck.engine.model.kernels.conv.MaxPoolKernel;

/**
 * maxPool1d … avgPool3d: the maximum or the average over windows; the stride is the window unless given. A 2×2 (2×2×2)
 * max pool at stride 2 runs on TrainDeck's kernel ({@link MaxPoolKernel}, {@link MaxPool3DKernel}) unless the node or
 * the backend asks for DL4J's layer.
 */
public final class Pooling implements LayerKind {

    private final boolean max;
    private final int dims;

    public Pooling(boolean max, int dims) {
        this.max = max;
        this.dims = dims;
    }

    @Override
    public String type() {
        return (max ? "max" : "avg") + "Pool" + dims + "d";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = Spatial.require(o, inputs, dims);
        int[] size = o.size("size", dims);
        int[] stride = o.size("stride", dims, size);
        String padding = o.string("padding");
        Shapes.windowFits("window", size, null, Spatial.extent(in), Spatial.axes(dims), !"valid".equals(padding));
        PoolingType type = max ? PoolingType.MAX : PoolingType.AVG;
        Layer layer = switch (dims) {
            case 1 ->
                new Subsampling1DLayer.Builder(type)
                        .kernelSize(size[0])
                        .stride(stride[0])
                        .convolutionMode(Spatial.mode(padding))
                        .build();
            case 2 ->
                onKernel(
                        o,
                        new SubsamplingLayer.Builder(type)
                                .kernelSize(size)
                                .stride(stride)
                                .convolutionMode(Spatial.mode(padding))
                                .build());
            default ->
                onKernel(
                        o,
                        new Subsampling3DLayer.Builder(type)
                                .kernelSize(size)
                                .stride(stride)
                                .convolutionMode(Spatial.mode(padding))
                                .dataFormat(Convolution3D.DataFormat.NCDHW)
                                .build());
        };
        return Built.layer(layer);
    }

    private static SubsamplingLayer onKernel(NodeOptions o, SubsamplingLayer layer) {
        return o.ownKernel() && MaxPoolKernel.convertible(layer) ? MaxPoolKernel.of(layer) : layer;
    }

    private static Subsampling3DLayer onKernel(NodeOptions o, Subsampling3DLayer layer) {
        return o.ownKernel() && MaxPool3DKernel.convertible(layer) ? MaxPool3DKernel.of(layer) : layer;
    }
}
