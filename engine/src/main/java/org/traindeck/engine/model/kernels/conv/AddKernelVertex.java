package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.impl.ElementWiseVertex;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link AddKernel} at run time: on float arrays of one shape, dense and row-major, the sum is made a chunk at a time
 * on the heap, the inputs added in their order (so each value is DL4J's bit for bit), and the backward pass hands each
 * input a bulk copy of the gradient. Several shapes (broadcasting), other data types and strided inputs go to DL4J's
 * vertex for the whole pass, forward and backward.
 */
public class AddKernelVertex extends ElementWiseVertex {

    private static final int CHUNK = 4096;

    /** The running sum and the next addend, a chunk each (a vertex runs on one thread at a time). */
    private final float[] sum = new float[CHUNK];

    private final float[] addend = new float[CHUNK];

    /** The inputs' shape in the last forward pass this vertex computed itself; null when DL4J's vertex did. */
    private long[] shape;

    private int count;

    public AddKernelVertex(ComputationGraph graph, String name, int index, DataType dataType) {
        super(graph, name, index, Op.Add, dataType);
    }

    private boolean computes() {
        if (inputs.length < 2 || dataType != DataType.FLOAT || inputs[0].length() >= Integer.MAX_VALUE) {
            return false;
        }
        for (INDArray in : inputs) {
            if (!Sgemm.isDenseRowMajor(in) || !Arrays.equals(in.shape(), inputs[0].shape())) {
                return false;
            }
        }
        return true;
    }

    @Override
    public INDArray doForward(boolean training, LayerWorkspaceMgr mgr) {
        if (!canDoForward() || !computes()) {
            shape = null;
            return super.doForward(training, mgr);
        }
        shape = inputs[0].shape();
        count = inputs.length;
        INDArray out = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, shape, 'c');
        FloatBuffer to = Sgemm.buffer(out);
        FloatBuffer[] from = new FloatBuffer[count];
        for (int i = 0; i < count; i++) {
            from[i] = Sgemm.buffer(inputs[i]);
        }
        int length = (int) out.length();
        for (int at = 0; at < length; at += CHUNK) {
            int n = Math.min(CHUNK, length - at);
            from[0].get(at, sum, 0, n);
            for (int i = 1; i < count; i++) {
                from[i].get(at, addend, 0, n);
                for (int j = 0; j < n; j++) {
                    sum[j] += addend[j];
                }
            }
            to.put(at, sum, 0, n);
        }
        return out;
    }

    @Override
    public Pair<Gradient, INDArray[]> doBackward(boolean tbptt, LayerWorkspaceMgr mgr) {
        if (shape == null) {
            return super.doBackward(tbptt, mgr);
        }
        if (!canDoBackward()) {
            throw new IllegalStateException("Cannot do backward pass: errors not set");
        }
        INDArray g = Sgemm.dense(epsilon.castTo(DataType.FLOAT));
        FloatBuffer from = Sgemm.buffer(g);
        int length = (int) g.length();
        INDArray[] out = new INDArray[count];
        for (int i = 0; i < count; i++) {
            out[i] = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, shape, 'c');
            Sgemm.buffer(out[i]).put(0, from, 0, length);
        }
        return new Pair<>(null, out);
    }

    @Override
    public String toString() {
        return "AddKernelVertex(name=\"" + getVertexName() + "\")";
    }
}
