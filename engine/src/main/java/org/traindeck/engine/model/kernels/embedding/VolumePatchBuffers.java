package org.traindeck.engine.model.kernels.embedding;

import org.traindeck.engine.model.kernels.HostFloats;

/**
 * The scratch memory of a patches3d or unpatch3d kernel: the patch rows for the products (native), their product and
 * its gradient, and the heap arrays the loops read. Each buffer only grows. A node without recompute has its own set and
 * keeps its rows in it between the forward and the backward pass; the recomputing nodes of a thread share one set
 * (nothing in it outlives a pass: the backward pass cuts its rows again from the node's input).
 */
final class VolumePatchBuffers {

    private static final ThreadLocal<VolumePatchBuffers> SHARED = ThreadLocal.withInitial(VolumePatchBuffers::new);

    HostFloats.Native rows;
    HostFloats.Native projected;
    HostFloats.Native rowsGrad;
    float[] volume = new float[0];
    float[] work = new float[0];
    float[] bias = new float[0];
    float[] positions = new float[0];

    /**
     * Floats per example a patches3d node's set holds after a batch, for volumes of {@code volumeValues} values and
     * {@code tokens} tokens of {@code width}: volume, rows and rowsGrad (the volume's values each), and work (the rows
     * on the way, the tokens' gradient [T, width] in the backward pass: the larger of the two). Bias and positions do
     * not grow with the batch.
     */
    static long patchesFloatsPerExample(long volumeValues, long tokens, long width) {
        return 3 * volumeValues + Math.max(volumeValues, tokens * width);
    }

    /**
     * Floats per example an unpatch3d node's set holds after a batch, for volumes of {@code volumeValues} values:
     * projected, work and volume (the volume's values each; the products read the tokens from the node's input).
     */
    static long unpatchFloatsPerExample(long volumeValues) {
        return 3 * volumeValues;
    }

    /** The set the calling thread's recomputing nodes share. */
    static VolumePatchBuffers shared() {
        return SHARED.get();
    }
}
