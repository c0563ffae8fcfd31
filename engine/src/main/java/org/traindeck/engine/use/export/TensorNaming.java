package org.traindeck.engine.use.export;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.nd4j.linalg.api.ndarray.INDArray;

/** How one DL4J layer type's parameters are named and laid out for a PyTorch user: one entry of {@link NamingTable}. */
@FunctionalInterface
public interface TensorNaming {

    /**
     * @param node   the graph node's name, the prefix of every tensor
     * @param layer  the node's layer configuration
     * @param params the layer's parameters by DL4J key, in DL4J's shapes
     */
    List<NamedTensor> tensors(String node, Layer layer, Map<String, INDArray> params);
}
