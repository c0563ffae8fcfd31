package org.traindeck.engine.profile;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.graph.vertex.VertexIndices;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The activation-gradient workspaces of one backward pass, as DL4J's own pass keeps them: each vertex's opens before
 * its backward and closes once the vertices that feed it have run theirs (its gradients consumed); the manager of a
 * closed one serves the next vertex, so that a pass needs as many as are open at once. Made before the pass and
 * closed after it, whatever happens.
 */
final class GradientWorkspaces {

    private final DlWorkspaces ws;
    private final int[] consumedBy;
    private final Deque<LayerWorkspaceMgr> free = new ArrayDeque<>();
    private int created;
    private final Map<MemoryWorkspace, LayerWorkspaceMgr> open = new IdentityHashMap<>();
    private final List<List<MemoryWorkspace>> closeAt = new ArrayList<>();
    private final MemoryWorkspace initial = Nd4j.getMemoryManager().getCurrentWorkspace();

    /** @param consumedBy per vertex index, the step of the pass after which its gradients are consumed */
    GradientWorkspaces(DlWorkspaces ws, int[] consumedBy, int steps) {
        this.ws = ws;
        this.consumedBy = consumedBy;
        for (int i = 0; i < steps; i++) {
            closeAt.add(null);
        }
    }

    /**
     * Per vertex index, the step (position in {@code order}) after which its activation gradients have been consumed:
     * the earliest of the vertices that feed it. Its workspace may close then.
     */
    static int[] consumedBy(GraphVertex[] vertices, int[] order) {
        int[] consumedBy = new int[vertices.length];
        for (GraphVertex gv : vertices) {
            int min = Integer.MAX_VALUE;
            if (gv.getInputVertices() != null) {
                for (VertexIndices vi : gv.getInputVertices()) {
                    min = Math.min(min, positionOf(order, vi.getVertexIndex()));
                }
            }
            consumedBy[gv.getVertexIndex()] = min == Integer.MAX_VALUE ? 0 : min;
        }
        return consumedBy;
    }

    private static int positionOf(int[] order, int vertexIndex) {
        for (int i = 0; i < order.length; i++) {
            if (order[i] == vertexIndex) {
                return i;
            }
        }
        throw new IllegalStateException("vertex " + vertexIndex + " is not in the topological order");
    }

    /** A manager for the next vertex's backward: one a closed workspace left free, or a new one. */
    LayerWorkspaceMgr take() {
        return !free.isEmpty() ? free.pop() : ws.activationGradients(created++);
    }

    /** Opens vertex {@code vertexIndex}'s activation-gradient workspace in {@code mgr}. */
    void open(LayerWorkspaceMgr mgr, int vertexIndex) {
        MemoryWorkspace grads = mgr.notifyScopeEntered(ArrayType.ACTIVATION_GRAD);
        open.put(grads, mgr);
        // activation-gradient workspaces do not nest: each closes back to the workspace outside the pass
        grads.setPreviousWorkspace(initial);
        int closeable = consumedBy[vertexIndex];
        if (closeable >= 0) {
            if (closeAt.get(closeable) == null) {
                closeAt.set(closeable, new ArrayList<>());
            }
            closeAt.get(closeable).add(grads);
        }
    }

    /** Closes the workspaces whose gradients step {@code step} consumed; their managers are free again. */
    void closeConsumed(int step) {
        if (closeAt.get(step) != null) {
            for (MemoryWorkspace w : closeAt.get(step)) {
                w.close();
                free.push(open.remove(w));
            }
            closeAt.set(step, null);
        }
    }

    /** Closes every workspace still open and returns to the workspace outside the pass. */
    void closeAll() {
        for (MemoryWorkspace w : open.keySet()) {
            w.close();
        }
        Nd4j.getMemoryManager().setCurrentWorkspace(initial);
    }
}
