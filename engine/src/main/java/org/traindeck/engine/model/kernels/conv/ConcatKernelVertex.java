package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.impl.MergeVertex;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link ConcatKernel} at run time: along axis 1 of row-major float arrays (channels of NCHW images, features, NCW
 * sequences) each example's output is its inputs' blocks one after another, so the forward pass is one bulk copy per
 * input and example into the output, and the backward pass the same copies out of the gradient. Another axis, other
 * data types and inputs of other ranks go to DL4J's MergeVertex (for the whole pass, forward and backward).
 */
public class ConcatKernelVertex extends MergeVertex {

    private final int axis;
    /** The inputs' shapes in the last forward pass this vertex computed itself; null when DL4J's vertex did. */
    private long[][] shapes;

    public ConcatKernelVertex(ComputationGraph graph, String name, int index, DataType dataType, int axis) {
        super(graph, name, index, dataType, axis);
        this.axis = axis;
    }

    private boolean computes() {
        if (axis != 1 || inputs.length < 2 || dataType != DataType.FLOAT) {
            return false;
        }
        long total = 0;
        for (INDArray in : inputs) {
            if (in.dataType() != DataType.FLOAT
                    || in.rank() != inputs[0].rank()
                    || in.rank() < 2
                    || in.size(0) != inputs[0].size(0)) {
                return false;
            }
            total += in.length();
        }
        return total < Integer.MAX_VALUE;
    }

    @Override
    public INDArray doForward(boolean training, LayerWorkspaceMgr mgr) {
        if (!canDoForward() || !computes()) {
            shapes = null;
            return super.doForward(training, mgr);
        }
        int n = (int) inputs[0].size(0);
        shapes = new long[inputs.length][];
        long[] outShape = inputs[0].shape().clone();
        outShape[1] = 0;
        int[] blocks = new int[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            shapes[i] = inputs[i].shape().clone();
            outShape[1] += shapes[i][1];
            blocks[i] = (int) (inputs[i].length() / n);
        }
        INDArray out = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, outShape, 'c');
        FloatBuffer to = Sgemm.buffer(out);
        int row = (int) (out.length() / n);
        int offset = 0;
        for (int i = 0; i < inputs.length; i++) {
            FloatBuffer from = Sgemm.buffer(Sgemm.dense(inputs[i]));
            for (int e = 0; e < n; e++) {
                to.put(e * row + offset, from, e * blocks[i], blocks[i]);
            }
            offset += blocks[i];
        }
        return out;
    }

    @Override
    public Pair<Gradient, INDArray[]> doBackward(boolean tbptt, LayerWorkspaceMgr mgr) {
        if (shapes == null) {
            return super.doBackward(tbptt, mgr);
        }
        if (!canDoBackward()) {
            throw new IllegalStateException("Cannot do backward pass: errors not set");
        }
        int n = (int) shapes[0][0];
        INDArray g = Sgemm.dense(epsilon.castTo(DataType.FLOAT));
        FloatBuffer from = Sgemm.buffer(g);
        int row = (int) (g.length() / n);
        INDArray[] out = new INDArray[shapes.length];
        int offset = 0;
        for (int i = 0; i < shapes.length; i++) {
            out[i] = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, shapes[i], 'c');
            int block = (int) (out[i].length() / n);
            FloatBuffer to = Sgemm.buffer(out[i]);
            for (int e = 0; e < n; e++) {
                to.put(e * block, from, e * row + offset, block);
            }
            offset += block;
        }
        return new Pair<>(null, out);
    }
}
