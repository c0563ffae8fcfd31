package org.traindeck.engine.profile;

import java.util.List;
import java.util.function.LongSupplier;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.layers.IOutputLayer;
import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.WorkspaceMode;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.graph.vertex.VertexIndices;
import org.deeplearning4j.nn.graph.vertex.impl.FrozenVertex;
import org.deeplearning4j.nn.graph.vertex.impl.LayerVertex;
import org.deeplearning4j.nn.layers.FrozenLayer;
import org.deeplearning4j.nn.layers.FrozenLayerWithBackprop;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * DL4J's {@code ComputationGraph.computeGradientAndScore()} (M2.1) walked here, vertex by vertex, so that each
 * vertex's forward and backward can be timed: the forward in topological order (output layers excluded, as DL4J
 * does: their forward runs inside their backward and again in the loss), the backward in reverse, then the loss of
 * each output. The same workspaces (names and policies), the same epsilon sums where a vertex feeds several, the same
 * gradient order; the gradient lands in the network's own gradient view, and {@link ComputationGraph#gradient()}
 * returns it, as after DL4J's own pass (its test checks both give the same gradient and loss). Not thread-safe.
 */
public final class GraphWalk {

    private final ComputationGraph net;
    private final GraphVertex[] vertices;
    private final int[] order;
    private final int[] outputIndices;
    private final boolean[] isOutput;
    private final DlWorkspaces ws;
    private final int[] consumedBy;
    private final LongSupplier clock;
    private final VertexTimes times;

    public GraphWalk(ComputationGraph net) {
        this(net, System::nanoTime);
    }

    /** @param clock nanoseconds: wall time, or the thread's CPU time where other processes load the machine */
    public GraphWalk(ComputationGraph net, LongSupplier clock) {
        this.net = net;
        this.clock = clock;
        this.vertices = net.getVertices();
        this.order = net.topologicalSortOrder();
        ComputationGraphConfiguration conf = net.getConfiguration();
        List<String> outputs = conf.getNetworkOutputs();
        this.outputIndices = outputs.stream()
                .mapToInt(s -> net.getVertex(s).getVertexIndex())
                .toArray();
        this.isOutput = new boolean[vertices.length];
        for (int i : outputIndices) {
            isOutput[i] = true;
        }
        this.ws = new DlWorkspaces(conf.getVertices().size());
        this.consumedBy = GradientWorkspaces.consumedBy(vertices, order);
        this.times = new VertexTimes(vertices, order);
    }

    /**
     * One forward and backward pass of {@code inputs} against {@code labels}, timed. Returns the loss (the score DL4J's
     * pass gives, regularization included); the gradient is in {@link ComputationGraph#getGradientsViewArray()}.
     */
    public double gradientAndScore(INDArray[] inputs, INDArray[] labels) {
        long start = clock.getAsLong();
        net.setInputs(inputs);
        net.setLabels(labels);
        ComputationGraphConfiguration conf = net.getConfiguration();
        if (conf.getBackpropType() == BackpropType.TruncatedBPTT) {
            throw new UnsupportedOperationException("truncated backpropagation through time is not profiled");
        }
        for (Layer l : net.getLayers()) {
            l.setIterationCount(conf.getIterationCount());
            l.setEpochCount(conf.getEpochCount());
        }
        boolean none = conf.getTrainingWorkspaceMode() == WorkspaceMode.NONE;
        LayerWorkspaceMgr mgr = none ? LayerWorkspaceMgr.noWorkspaces() : ws.step();
        mgr.setHelperWorkspacePointers(net.getHelperWorkspaces());
        double score;
        try (MemoryWorkspace all = mgr.notifyScopeEntered(ArrayType.ACTIVATIONS)) {
            forward(inputs, none);
            backward(labels);
            score = loss(mgr);
        }
        for (GraphVertex gv : vertices) {
            gv.clear();
        }
        times.addPass(clock.getAsLong() - start);
        return score;
    }

    private void forward(INDArray[] inputs, boolean none) {
        net.setLayerMaskArrays(net.getInputMaskArrays(), net.getLabelMaskArrays());
        LayerWorkspaceMgr mgr = none
                ? LayerWorkspaceMgr.noWorkspaces()
                : ws.forward(inputs[0], net.getConfiguration().getCacheMode());
        mgr.setHelperWorkspacePointers(net.getHelperWorkspaces());
        for (int index : order) {
            GraphVertex current = vertices[index];
            if (isOutput[index]) {
                continue;
            }
            try (MemoryWorkspace working = mgr.notifyScopeEntered(ArrayType.FF_WORKING_MEM)) {
                INDArray out;
                if (current.isInputVertex()) {
                    out = inputs[index];
                } else {
                    long t = clock.getAsLong();
                    out = current.doForward(true, mgr);
                    Nd4j.getExecutioner().commit();
                    times.addForward(index, clock.getAsLong() - t);
                }
                VertexIndices[] to = current.getOutputVertices();
                if (to != null) {
                    for (VertexIndices v : to) {
                        vertices[v.getVertexIndex()].setInput(v.getVertexEdgeNumber(), out, mgr);
                    }
                }
            }
        }
    }

    private void backward(INDArray[] labels) {
        if (net.getGradientsViewArray() == null) {
            net.initGradientsView();
        }
        boolean none = net.getConfiguration().getInferenceWorkspaceMode() == WorkspaceMode.NONE;
        LayerWorkspaceMgr allNone = none ? LayerWorkspaceMgr.noWorkspaces(net.getHelperWorkspaces()) : null;
        GradientCollector gradients = new GradientCollector();
        boolean[] epsilonSet = new boolean[vertices.length];
        GradientWorkspaces workspaces = new GradientWorkspaces(ws, consumedBy, order.length);
        try {
            for (int i = order.length - 1; i >= 0; i--) {
                GraphVertex current = vertices[order[i]];
                boolean frozen = current.hasLayer() && current.getLayer() instanceof FrozenLayer
                        || current instanceof FrozenVertex;
                if (current.isInputVertex() || frozen) {
                    workspaces.closeConsumed(i);
                    continue;
                }
                LayerWorkspaceMgr mgr = none ? allNone : workspaces.take();
                mgr.setHelperWorkspacePointers(net.getHelperWorkspaces());
                if (current.isOutputVertex()) {
                    setLabels(current, labels);
                }
                workspaces.open(mgr, current.getVertexIndex());
                Pair<Gradient, INDArray[]> pair;
                try (MemoryWorkspace working = mgr.notifyScopeEntered(ArrayType.BP_WORKING_MEM)) {
                    long t = clock.getAsLong();
                    pair = current.doBackward(false, mgr);
                    Nd4j.getExecutioner().commit();
                    times.addBackward(current.getVertexIndex(), clock.getAsLong() - t);
                }
                passEpsilons(current, pair.getSecond(), epsilonSet);
                if (pair.getFirst() != null) {
                    gradients.add(current.getVertexName(), pair.getFirst());
                }
                workspaces.closeConsumed(i);
            }
        } finally {
            workspaces.closeAll();
        }
        gradients.setInto(net);
    }

    private void setLabels(GraphVertex current, INDArray[] labels) {
        int output = net.getConfiguration().getNetworkOutputs().indexOf(current.getVertexName());
        Layer layer = current.getLayer();
        if (layer instanceof FrozenLayerWithBackprop f) {
            layer = f.getInsideLayer();
        }
        if (!(layer instanceof IOutputLayer out)) {
            throw new UnsupportedOperationException(
                    "output \"" + current.getVertexName() + "\" is not an output layer");
        }
        out.setLabels(labels[output]);
    }

    /** Hands each input vertex its part of the gradient; where branches meet, the parts are summed (timed). */
    private void passEpsilons(GraphVertex current, INDArray[] epsilons, boolean[] epsilonSet) {
        if (current.getInputVertices() == null) {
            return;
        }
        int j = 0;
        for (VertexIndices v : current.getInputVertices()) {
            GraphVertex gv = vertices[v.getVertexIndex()];
            if (epsilonSet[gv.getVertexIndex()]) {
                INDArray eps = gv.getEpsilon();
                if (eps == null) {
                    gv.setEpsilon(null);
                } else {
                    long t = clock.getAsLong();
                    gv.setEpsilon(eps.addi(epsilons[j++]));
                    Nd4j.getExecutioner().commit();
                    times.addBranchSum(clock.getAsLong() - t);
                }
            } else {
                gv.setEpsilon(epsilons[j++]);
            }
            epsilonSet[gv.getVertexIndex()] = true;
        }
    }

    private double loss(LayerWorkspaceMgr mgr) {
        double r = net.calcRegularizationScore(true);
        double score = 0;
        List<String> outputs = net.getConfiguration().getNetworkOutputs();
        for (int o = 0; o < outputs.size(); o++) {
            GraphVertex gv = net.getVertex(outputs.get(o));
            long t = clock.getAsLong();
            if (gv instanceof LayerVertex lv && !lv.isSetLayerInput()) {
                lv.applyPreprocessorAndSetInput(mgr);
            }
            Layer layer = gv.getLayer();
            if (layer instanceof FrozenLayerWithBackprop f) {
                layer = f.getInsideLayer();
            }
            INDArray[] masks = net.getLabelMaskArrays();
            layer.setMaskArray(masks == null ? null : masks[o]);
            try (MemoryWorkspace working = mgr.notifyScopeEntered(ArrayType.FF_WORKING_MEM)) {
                score += ((IOutputLayer) layer).computeScore(r, true, mgr);
            }
            Nd4j.getExecutioner().commit();
            times.addForward(gv.getVertexIndex(), clock.getAsLong() - t);
            // the regularization term counts once
            r = 0;
        }
        return score;
    }

    /** The vertices' names in topological order, input vertices left out: the nodes the times are for. */
    public List<String> nodeNames() {
        return times.nodeNames();
    }

    /** Nanoseconds in the forward of each node of {@link #nodeNames()}, summed over the passes (an output's: its loss). */
    public long[] forwardNs() {
        return times.forwardNs();
    }

    /** Nanoseconds in the backward of each node of {@link #nodeNames()}, summed over the passes. */
    public long[] backwardNs() {
        return times.backwardNs();
    }

    /** Nanoseconds summing the gradients that flow back into a vertex from several consumers (residual branches). */
    public long branchSumNs() {
        return times.branchSumNs();
    }

    /** Nanoseconds in whole passes: the vertices, the branch sums and the graph's bookkeeping (workspaces, inputs). */
    public long walkNs() {
        return times.walkNs();
    }

    public int passes() {
        return times.passes();
    }

    /** Forgets the times so far (after warm-up). */
    public void reset() {
        times.reset();
    }

    /** Whether a vertex is one of the network's outputs (its forward time is its loss). */
    public boolean isOutput(String node) {
        return isOutput[net.getVertex(node).getVertexIndex()];
    }
}
