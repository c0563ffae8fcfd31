package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.TimeDistributed;
import org.nd4j.linalg.activations.Activation;
import org.traindeck.engine.model.graph.Activations;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.kernels.dense.DenseKernel;

/**
 * Fully connected; on a sequence, the same layer at every step (as Keras' Dense on a 3D tensor). TrainDeck's kernel
 * ({@link DenseKernel}) unless the node or the backend asks for DL4J's DenseLayer, which has the same parameters.
 */
public final class Dense implements LayerKind {

    @Override
    public String type() {
        return "dense";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        Activation act = o.activation("activation");
        if (o.ownKernel() && DenseKernel.supports(act)) {
            return Built.layer(new DenseKernel.Builder()
                    .nOut(o.integer("units"))
                    .activation(act)
                    .weightInit(Activations.initFor(act))
                    .hasBias(o.bool("bias"))
                    .build());
        }
        DenseLayer dense = new DenseLayer.Builder()
                .nOut(o.integer("units"))
                .activation(act)
                .weightInit(Activations.initFor(act))
                .hasBias(o.bool("bias"))
                .build();
        // a plain DenseLayer turns a sequence into rows, and the next sequence layer cannot undo it
        return Built.layer(
                inputs.get(0).getType() == InputType.Type.RNN ? new TimeDistributed(dense, RNNFormat.NCW) : dense);
    }
}
