package org.traindeck.engine.model.kernels.transformer;

import static org.nd4j.linalg.indexing.NDArrayIndex.all;
import static org.nd4j.linalg.indexing.NDArrayIndex.interval;
import static org.nd4j.linalg.indexing.NDArrayIndex.point;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.MaskState;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.BaseGraphVertex;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.Sgemm;

/** {@link BlockInputsVertex} at run time: packs the tokens, condition and context, and splits their gradient. */
final class BlockInputs extends BaseGraphVertex {

    private final boolean condition;
    private final boolean context;

    BlockInputs(ComputationGraph graph, String name, int index, boolean condition, boolean context, DataType type) {
        super(graph, name, index, null, null, type);
        this.condition = condition;
        this.context = context;
    }

    @Override
    public boolean hasLayer() {
        return false;
    }

    @Override
    public Layer getLayer() {
        return null;
    }

    /** The packed inputs' parts, each flattened per example: tokens, then condition and context where present. */
    private long[] partSizes() {
        long[] sizes = new long[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            sizes[i] = inputs[i].length() / inputs[i].size(0);
        }
        return sizes;
    }

    @Override
    public INDArray doForward(boolean training, LayerWorkspaceMgr workspaceMgr) {
        INDArray tokens = inputs[0];
        if (tokens.rank() != 3 || (condition && inputs[1].rank() != 2)) {
            throw new IllegalStateException("block inputs \"" + vertexName + "\": expects tokens [mb, features, steps]"
                    + (condition ? " and a condition [mb, features]" : "") + ", got "
                    + Arrays.toString(tokens.shape())
                    + (condition ? " and " + Arrays.toString(inputs[1].shape()) : ""));
        }
        long mb = tokens.size(0);
        long[] sizes = partSizes();
        long total = 1 + Arrays.stream(sizes).sum();
        INDArray out =
                workspaceMgr.createUninitialized(ArrayType.ACTIVATIONS, tokens.dataType(), new long[] {mb, total}, 'c');
        if (dense(out) && Arrays.stream(inputs).allMatch(BlockInputs::dense)) {
            pack(out, mb, total, sizes, tokens.size(2));
            return out;
        }
        out.get(all(), point(0)).assign(tokens.size(2));
        long at = 1;
        for (int i = 0; i < inputs.length; i++) {
            out.get(all(), interval(at, at + sizes[i]))
                    .assign(inputs[i].dup('c').reshape('c', mb, sizes[i]));
            at += sizes[i];
        }
        return out;
    }

    @Override
    public Pair<Gradient, INDArray[]> doBackward(boolean tbptt, LayerWorkspaceMgr workspaceMgr) {
        long mb = epsilon.size(0);
        long[] sizes = partSizes();
        INDArray[] out = new INDArray[inputs.length];
        if (dense(epsilon)) {
            unpack(out, mb, sizes, workspaceMgr);
            return new Pair<>(null, out);
        }
        long at = 1;
        for (int i = 0; i < inputs.length; i++) {
            INDArray part = epsilon.get(all(), interval(at, at + sizes[i]));
            out[i] = workspaceMgr.dup(ArrayType.ACTIVATION_GRAD, part, 'c').reshape('c', inputs[i].shape());
            at += sizes[i];
        }
        return new Pair<>(null, out);
    }

    private static boolean dense(INDArray a) {
        return Sgemm.isDenseRowMajor(a) && a.elementWiseStride() == 1;
    }

    /**
     * The packing as bulk copies between the arrays' memory: at a block's sizes the chain of ND4J view, dup and assign
     * ops cost more than the copies themselves.
     */
    private void pack(INDArray out, long mb, long total, long[] sizes, long steps) {
        FloatBuffer to = Sgemm.buffer(out);
        for (int e = 0; e < mb; e++) {
            to.put((int) (e * total), (float) steps);
        }
        long at = 1;
        for (int i = 0; i < inputs.length; i++) {
            FloatBuffer from = Sgemm.buffer(inputs[i]);
            int size = (int) sizes[i];
            for (int e = 0; e < mb; e++) {
                to.put((int) (e * total + at), from, e * size, size);
            }
            at += sizes[i];
        }
    }

    /** Each part's gradient copied out of the packed one, as {@link #pack}. */
    private void unpack(INDArray[] out, long mb, long[] sizes, LayerWorkspaceMgr workspaceMgr) {
        FloatBuffer from = Sgemm.buffer(epsilon);
        long total = epsilon.size(1);
        long at = 1;
        for (int i = 0; i < inputs.length; i++) {
            out[i] =
                    workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputs[i].shape(), 'c');
            FloatBuffer to = Sgemm.buffer(out[i]);
            int size = (int) sizes[i];
            for (int e = 0; e < mb; e++) {
                to.put(e * size, from, (int) (e * total + at), size);
            }
            at += sizes[i];
        }
    }

    @Override
    public void setBackpropGradientsViewArray(INDArray backpropGradientsViewArray) {
        if (backpropGradientsViewArray != null) {
            throw new IllegalStateException("block inputs \"" + vertexName + "\" have no parameters");
        }
    }

    @Override
    public Pair<INDArray, MaskState> feedForwardMaskArrays(
            INDArray[] maskArrays, MaskState currentMaskState, int minibatchSize) {
        // the block's kernel takes no padding mask: nothing passes on
        return null;
    }

    @Override
    public String toString() {
        return "BlockInputs(name=\"" + vertexName + "\", condition=" + condition + ", context=" + context + ")";
    }
}
