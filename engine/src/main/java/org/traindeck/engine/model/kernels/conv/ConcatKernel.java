package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A concat node on TrainDeck's kernel ({@link ConcatKernelVertex}): DL4J's MergeVertex configuration (the merge axis
 * included, which DL4J's own {@code clone} drops), computed by bulk copies of each example's block.
 */
public class ConcatKernel extends MergeVertex {

    /** For JSON. */
    public ConcatKernel() {}

    @Override
    public GraphVertex instantiate(
            ComputationGraph graph,
            String name,
            int idx,
            INDArray paramsView,
            boolean initializeParams,
            DataType type) {
        return new ConcatKernelVertex(graph, name, idx, type, mergeAxis);
    }

    @Override
    public ConcatKernel clone() {
        ConcatKernel copy = new ConcatKernel();
        copy.mergeAxis = mergeAxis;
        copy.modified = modified;
        return copy;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConcatKernel c && c.mergeAxis == mergeAxis;
    }

    @Override
    public int hashCode() {
        return 433682567 + mergeAxis;
    }

    @Override
    public String toString() {
        return "ConcatKernel(mergeAxis=" + mergeAxis + ")";
    }
}
