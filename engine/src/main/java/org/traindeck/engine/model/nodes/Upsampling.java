package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Upsampling2D;
import org.deeplearning4j.nn.conf.layers.Upsampling3D;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.kernels.conv.Upsample3DKernel;
import org.traindeck.engine.model.kernels.conv.UpsampleKernel;

/**
 * upsample2d and upsample3d: each pixel (voxel) repeated size times along each axis, on TrainDeck's kernel ({@link
 * UpsampleKernel}, {@link Upsample3DKernel}) unless the node or the backend asks for DL4J's layer.
 */
public final class Upsampling implements LayerKind {

    private final int dims;

    public Upsampling(int dims) {
        this.dims = dims;
    }

    @Override
    public String type() {
        return "upsample" + dims + "d";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        Spatial.require(o, inputs, dims);
        int[] size = o.size("size", dims);
        if (dims == 2) {
            Upsampling2D layer = new Upsampling2D.Builder().size(size).build();
            return Built.layer(o.ownKernel() && UpsampleKernel.convertible(layer) ? UpsampleKernel.of(layer) : layer);
        }
        Upsampling3D layer = new Upsampling3D.Builder()
                .size(size)
                .dataFormat(Convolution3D.DataFormat.NCDHW)
                .build();
        return Built.layer(o.ownKernel() && Upsample3DKernel.convertible(layer) ? Upsample3DKernel.of(layer) : layer);
    }
}
