package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * A kernel layer's relu output of its last training forward pass, kept without a copy for the backward pass's mask:
 * no layer writes into its input (a graph may hand it to several), and the graph's activations workspace stays open
 * until the backward pass. {@link #valid} checks both before the mask is read.
 */
final class KeptReluOutput {

    private static final int CHUNK = 4096;
    private static final ThreadLocal<float[][]> CHUNKS =
            ThreadLocal.withInitial(() -> new float[][] {new float[CHUNK], new float[CHUNK]});

    private INDArray kept;
    private long generation;
    private HostFloats.Native delta;

    /**
     * The relu in place on a kernel's output (libnd4j's in-place op: a Java pass through the heap measured slower), the
     * output kept for the backward pass's mask when training. No copy: see the class comment.
     */
    void reluInPlace(INDArray out, boolean training) {
        Transforms.relu(out, false);
        if (training) {
            kept = out;
            generation = generation(out);
        }
    }

    void clear() {
        kept = null;
    }

    /** The kept output still holds this pass's values: not freed, and its workspace open in the same cycle. */
    boolean valid(long[] outputShape) {
        if (kept == null || kept.wasClosed() || !Arrays.equals(kept.shape(), outputShape)) {
            return false;
        }
        return !kept.isAttached() || kept.data().getParentWorkspace().isScopeActive() && generation(kept) == generation;
    }

    /** dy·[y > 0], into a buffer of this layer's own that the next call overwrites; dy dense, of the kept shape. */
    INDArray masked(INDArray dy) {
        delta = HostFloats.Native.fit(delta, dy.length());
        INDArray dz = delta.array.get(NDArrayIndex.interval(0, dy.length())).reshape('c', dy.shape());
        reluMask(Sgemm.buffer(dy), Sgemm.buffer(kept), Sgemm.buffer(dz), (int) dy.length());
        return dz;
    }

    /** dz = dy·[y > 0] from the relu's output y ≥ 0, by a min rather than a branch (the relu kernel's step). */
    static void reluMask(FloatBuffer dy, FloatBuffer y, FloatBuffer dz, int n) {
        float[][] chunks = CHUNKS.get();
        float[] g = chunks[0];
        float[] m = chunks[1];
        for (int at = 0; at < n; at += CHUNK) {
            int len = Math.min(CHUNK, n - at);
            dy.get(at, g, 0, len);
            y.get(at, m, 0, len);
            for (int i = 0; i < len; i++) {
                g[i] *= Math.min(1f, m[i] * 0x1p127f * 0x1p127f);
            }
            dz.put(at, g, 0, len);
        }
    }

    private static long generation(INDArray a) {
        return a.isAttached() ? a.data().getParentWorkspace().getGenerationId() : -1;
    }
}
