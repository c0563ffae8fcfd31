package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Upsampling2D;
import org.deeplearning4j.nn.conf.layers.Upsampling3D;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;

/** upsample2d and upsample3d: each pixel (voxel) repeated size times along each axis. */
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
        return Built.layer(
                dims == 2
                        ? new Upsampling2D.Builder().size(size).build()
                        : new Upsampling3D.Builder()
                                .size(size)
                                .dataFormat(Convolution3D.DataFormat.NCDHW)
                                .build());
    }
}
