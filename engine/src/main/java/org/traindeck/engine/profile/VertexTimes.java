package org.traindeck.engine.profile;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;

/** What a {@link GraphWalk} measures, summed over its passes, and read per node in topological order. */
final class VertexTimes {

    private final GraphVertex[] vertices;
    private final int[] order;
    /** Per vertex index: nanoseconds in its forward (for an output layer: its loss) and in its backward. */
    private final long[] forwardNs;

    private final long[] backwardNs;
    private long branchSumNs;
    private long walkNs;
    private int passes;

    VertexTimes(GraphVertex[] vertices, int[] order) {
        this.vertices = vertices;
        this.order = order;
        this.forwardNs = new long[vertices.length];
        this.backwardNs = new long[vertices.length];
    }

    void addForward(int vertex, long ns) {
        forwardNs[vertex] += ns;
    }

    void addBackward(int vertex, long ns) {
        backwardNs[vertex] += ns;
    }

    void addBranchSum(long ns) {
        branchSumNs += ns;
    }

    void addPass(long ns) {
        walkNs += ns;
        passes++;
    }

    List<String> nodeNames() {
        List<String> names = new ArrayList<>();
        for (int index : order) {
            if (!vertices[index].isInputVertex()) {
                names.add(vertices[index].getVertexName());
            }
        }
        return names;
    }

    long[] forwardNs() {
        return perNode(forwardNs);
    }

    long[] backwardNs() {
        return perNode(backwardNs);
    }

    long branchSumNs() {
        return branchSumNs;
    }

    long walkNs() {
        return walkNs;
    }

    int passes() {
        return passes;
    }

    void reset() {
        Arrays.fill(forwardNs, 0);
        Arrays.fill(backwardNs, 0);
        branchSumNs = 0;
        walkNs = 0;
        passes = 0;
    }

    private long[] perNode(long[] byIndex) {
        long[] out = new long
                [(int) Arrays.stream(order)
                        .filter(i -> !vertices[i].isInputVertex())
                        .count()];
        int k = 0;
        for (int index : order) {
            if (!vertices[index].isInputVertex()) {
                out[k++] = byIndex[index];
            }
        }
        return out;
    }
}
