package org.traindeck.engine.model.kernels.transformer;

import static org.nd4j.linalg.indexing.NDArrayIndex.all;
import static org.nd4j.linalg.indexing.NDArrayIndex.interval;
import static org.nd4j.linalg.indexing.NDArrayIndex.point;

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
        long at = 1;
        for (int i = 0; i < inputs.length; i++) {
            INDArray part = epsilon.get(all(), interval(at, at + sizes[i]));
            out[i] = workspaceMgr.dup(ArrayType.ACTIVATION_GRAD, part, 'c').reshape('c', inputs[i].shape());
            at += sizes[i];
        }
        return new Pair<>(null, out);
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
