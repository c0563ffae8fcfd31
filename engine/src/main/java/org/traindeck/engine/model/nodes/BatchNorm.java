package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.kernels.conv.BatchNormKernel;

/**
 * Batch normalisation over the channels (features); refused where DL4J M2.1 is known to fail. TrainDeck's fused kernel
 * ({@link BatchNormKernel}) unless the node or the backend asks for DL4J's layer.
 */
public final class BatchNorm implements LayerKind {

    @Override
    public String type() {
        return "batchNorm";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        switch (inputs.get(0).getType()) {
            case CNN3D ->
                throw new ShapeError(
                        "cannot follow a volume: DL4J 1.0.0-M2.1's BatchNormalization fails on rank-5 input "
                                + "(\"Unable to process input of rank 5\"). Use \"layerNorm\" after a \"flatten\", or leave normalisation out of the 3D part");
            case RNN ->
                throw new ShapeError(
                        "cannot take a sequence: DL4J 1.0.0-M2.1's BatchNormalization fails in backprop after a "
                                + "1D convolution. Use \"layerNorm\" on sequences");
            default -> {}
        }
        BatchNormalization bn = new BatchNormalization.Builder()
                .decay(o.number("momentum"))
                .eps(o.number("epsilon"))
                .build();
        return Built.layer(o.ownKernel() ? BatchNormKernel.of(bn) : bn);
    }
}
