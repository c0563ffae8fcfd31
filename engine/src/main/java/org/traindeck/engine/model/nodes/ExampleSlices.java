package org.traindeck.engine.model.nodes;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.memory.conf.WorkspaceConfiguration;
import org.nd4j.linalg.api.memory.enums.AllocationPolicy;
import org.nd4j.linalg.api.memory.enums.LearningPolicy;
import org.nd4j.linalg.api.memory.enums.ResetPolicy;
import org.nd4j.linalg.api.memory.enums.SpillPolicy;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The backward pass of a recomputing layer a few examples at a time (and in a chain, {@link RecomputeChains}, the
 * forward pass too). DL4J's layers recompute their pre-activation for
 * the whole minibatch and hold it, its gradient and their input's gradient in working memory at once (for a 3D
 * convolution, twice its output); slice by slice the same products need one slice's worth, in a workspace of this
 * class's that every slice reuses. A convolution treats examples independently, so the input gradients are the same
 * and the weight gradients the sum of the slices' (summed here in the same order every step).
 */
final class ExampleSlices {

    /** Floats of output one slice may hold (512 KB); at least two slices whenever the batch has two examples. */
    static final long SLICE_FLOATS = 1L << 17;

    private static final String WORKSPACE = "TD_RECOMPUTE_SLICE";

    private static final WorkspaceConfiguration CONFIG = WorkspaceConfiguration.builder()
            .initialSize(0)
            .overallocationLimit(0.02)
            .policyLearning(LearningPolicy.FIRST_LOOP)
            .policyReset(ResetPolicy.BLOCK_LEFT)
            .policySpill(SpillPolicy.REALLOCATE)
            .policyAllocation(AllocationPolicy.OVERALLOCATE)
            .build();

    /** Every kind of array a layer makes goes to the slice workspace (workspaces are per thread, so one serves all). */
    static final LayerWorkspaceMgr SLICE = sliceWorkspaces();

    private ExampleSlices() {}

    /**
     * What a recomputing layer lends its sliced passes: its input field (whose {@code input()} is what the forward pass
     * kept; in a chain, the placeholder its producer returned, for its shape), and DL4J's own passes over the input it
     * has.
     */
    interface Sliceable extends Layer {

        void useInput(INDArray input);

        Pair<Gradient, INDArray> wholeBackprop(INDArray epsilon, LayerWorkspaceMgr workspaces);

        INDArray wholeActivate(boolean training, LayerWorkspaceMgr workspaces);

        /** Its place in a chain of recomputing layers ({@link RecomputeChains}). */
        RecomputeLink link();
    }

    private static LayerWorkspaceMgr sliceWorkspaces() {
        LayerWorkspaceMgr.Builder b = LayerWorkspaceMgr.builder();
        for (ArrayType t : ArrayType.values()) {
            b.with(t, WORKSPACE, CONFIG);
        }
        return b.build();
    }

    static long examplesPerSlice(long batch, long floatsPerExample) {
        if (batch < 2) {
            return Math.max(batch, 1);
        }
        long fit = Math.max(1, SLICE_FLOATS / Math.max(1, floatsPerExample));
        return Math.min(fit, (batch + 1) / 2);
    }

    /** Examples [from, to) of {@code array}, a view. */
    static INDArray rows(INDArray array, long from, long to) {
        INDArrayIndex[] index = new INDArrayIndex[array.rank()];
        index[0] = NDArrayIndex.interval(from, to);
        for (int i = 1; i < index.length; i++) {
            index[i] = NDArrayIndex.all();
        }
        return array.get(index);
    }

    /**
     * {@code layer}'s backward pass slice by slice: its input's gradient in {@code workspaces}' ACTIVATION_GRAD array
     * as DL4J's would be, its parameters' gradients summed into its own gradient views.
     */
    static Pair<Gradient, INDArray> backprop(Sliceable layer, INDArray epsilon, LayerWorkspaceMgr workspaces) {
        INDArray kept = layer.input();
        Sliceable source = layer.link().source();
        long[] inShape = kept.shape();
        long batch = inShape[0];
        long per = examplesPerSlice(batch, epsilon.length() / batch);
        INDArray inputGradient =
                workspaces.createUninitialized(ArrayType.ACTIVATION_GRAD, epsilon.dataType(), inShape, 'c');
        INDArray sum = layer.getGradientsViewArray();
        Gradient last = null;
        try {
            for (long from = 0; from < batch; from += per) {
                long to = Math.min(batch, from + per);
                try (MemoryWorkspace ws = SLICE.notifyScopeEntered(ArrayType.BP_WORKING_MEM)) {
                    INDArray partial = SLICE.createUninitialized(
                            ArrayType.BP_WORKING_MEM, sum.dataType(), sum.shape(), sum.ordering());
                    layer.useInput(source == null ? rows(kept, from, to) : outputRows(source, from, to));
                    layer.setBackpropGradientsViewArray(partial);
                    Pair<Gradient, INDArray> p = layer.wholeBackprop(rows(epsilon, from, to), SLICE);
                    rows(inputGradient, from, to).assign(p.getSecond());
                    if (from == 0) {
                        sum.assign(partial);
                    } else {
                        sum.addi(partial);
                    }
                    last = p.getFirst();
                }
            }
        } finally {
            layer.useInput(kept);
            layer.setBackpropGradientsViewArray(sum);
        }
        Map<String, INDArray> views =
                layer.conf().getLayer().initializer().getGradientsFromFlattened(layer.conf(), sum);
        Gradient g = new DefaultGradient();
        for (String key : last.gradientForVariable().keySet()) {
            g.setGradientFor(key, views.get(key), last.flatteningOrderForVariable(key));
        }
        return new Pair<>(g, inputGradient);
    }

    /**
     * A recomputing layer's forward pass. In training, a layer whose consumer recomputes it returns a placeholder of
     * its output's shape (no data: its consumer computes it slice by slice), and a layer whose producer does so
     * computes its input and output slice by slice; otherwise DL4J's.
     */
    static INDArray activate(Sliceable layer, boolean training, LayerWorkspaceMgr workspaces) {
        RecomputeLink link = layer.link();
        if (!training || (!link.feedsConsumer() && link.source() == null)) {
            return layer.wholeActivate(training, workspaces);
        }
        if (link.feedsConsumer()) {
            return link.placeholder(layer.input().shape(), () -> {
                try (MemoryWorkspace ws = SLICE.notifyScopeEntered(ArrayType.FF_WORKING_MEM)) {
                    return outputRows(layer, 0, 1);
                }
            });
        }
        long batch = layer.input().size(0);
        long per = examplesPerSlice(batch, layer.input().length() / batch);
        INDArray out = null;
        for (long from = 0; from < batch; from += per) {
            long to = Math.min(batch, from + per);
            try (MemoryWorkspace ws = SLICE.notifyScopeEntered(ArrayType.FF_WORKING_MEM)) {
                INDArray part = outputRows(layer, from, to);
                if (out == null) {
                    long[] shape = part.shape().clone();
                    shape[0] = batch;
                    out = workspaces.createUninitialized(ArrayType.ACTIVATIONS, part.dataType(), shape, 'c');
                }
                rows(out, from, to).assign(part);
            }
        }
        return out;
    }

    /** Examples [from, to) of {@code layer}'s output in training, computed in the open slice workspace. */
    private static INDArray outputRows(Sliceable layer, long from, long to) {
        INDArray kept = layer.input();
        Sliceable source = layer.link().source();
        INDArray in = source == null ? rows(kept, from, to) : outputRows(source, from, to);
        layer.useInput(in);
        try {
            return layer.wholeActivate(true, SLICE);
        } finally {
            layer.useInput(kept);
        }
    }
}
