package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * An add node on TrainDeck's kernel ({@link AddKernelVertex}): DL4J's element-wise Add configuration, computed as one
 * pass over the inputs' memory instead of an assign and an add op (and their executioner's bookkeeping) per input.
 */
public class AddKernel extends ElementWiseVertex {

    public AddKernel() {
        super(Op.Add);
    }

    @Override
    public GraphVertex instantiate(
            ComputationGraph graph,
            String name,
            int idx,
            INDArray paramsView,
            boolean initializeParams,
            DataType networkDatatype) {
        return new AddKernelVertex(graph, name, idx, networkDatatype);
    }

    @Override
    public AddKernel clone() {
        return new AddKernel();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AddKernel;
    }

    @Override
    public int hashCode() {
        return 611_953;
    }

    @Override
    public String toString() {
        return "AddKernel()";
    }
}
