package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.deeplearning4j.nn.conf.layers.Deconvolution3D;
import org.nd4j.linalg.activations.Activation;
import org.traindeck.engine.model.graph.Activations;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.kernels.conv.Deconv2DKernel;
import org.traindeck.engine.model.kernels.conv.Deconv3DKernel;

/**
 * deconv2d and deconv3d: transposed convolutions, a learned up-sampling by the stride. One with relu or no activation
 * runs on TrainDeck's kernel ({@link Deconv2DKernel}, {@link Deconv3DKernel}) unless the node ({@code
 * "implementation": "dl4j"}) or the backend asks for DL4J's layer.
 */
public final class Deconvolution implements LayerKind {

    private final int dims;

    public Deconvolution(int dims) {
        this.dims = dims;
    }

    @Override
    public String type() {
        return "deconv" + dims + "d";
    }

    private static boolean ownKernel(NodeOptions o) {
        return o.kernels().kernelFor(o.has(Convolution.IMPLEMENTATION) ? o.string(Convolution.IMPLEMENTATION) : null);
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        Spatial.require(o, inputs, dims);
        int[] kernel = o.size("kernel", dims);
        int[] stride = o.size("stride", dims);
        Activation act = o.activation("activation");
        if (dims == 2) {
            return Built.layer(Deconv2DKernel.where(
                    ownKernel(o),
                    new Deconvolution2D.Builder(kernel, stride)
                            .nOut(o.integer("filters"))
                            .convolutionMode(Spatial.mode(o.string("padding")))
                            .activation(act)
                            .weightInit(Activations.initFor(act))
                            .hasBias(o.bool("bias"))
                            .build()));
        }
        return Built.layer(Deconv3DKernel.where(
                ownKernel(o),
                new Deconvolution3D.Builder()
                        .kernelSize(kernel)
                        .stride(stride)
                        .nOut(o.integer("filters"))
                        .convolutionMode(Spatial.mode(o.string("padding")))
                        .dataFormat(Convolution3D.DataFormat.NCDHW)
                        .activation(act)
                        .weightInit(Activations.initFor(act))
                        .hasBias(o.bool("bias"))
                        .build()));
    }
}
