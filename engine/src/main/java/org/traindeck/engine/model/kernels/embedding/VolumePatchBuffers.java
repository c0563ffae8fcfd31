package org.traindeck.engine.model.kernels.embedding;

import org.traindeck.engine.model.kernels.HostFloats;

/**
 * The scratch memory of a patches3d or unpatch3d kernel: the rows for the products (native), their product and its
 * gradient, and the heap arrays the loops read. Each buffer only grows. A node without recompute has its own set and
 * keeps its rows in it between the forward and the backward pass; the recomputing nodes of a thread share one set
 * (nothing in it outlives a pass: the backward pass cuts its rows again from the node's input).
 */
final class VolumePatchBuffers {

    private static final ThreadLocal<VolumePatchBuffers> SHARED = ThreadLocal.withInitial(VolumePatchBuffers::new);

    HostFloats.Native rows;
    HostFloats.Native projected;
    HostFloats.Native rowsGrad;
    float[] volume = new float[0];
    float[] sequence = new float[0];
    float[] work = new float[0];
    float[] bias = new float[0];
    float[] positions = new float[0];

    /**
     * Floats per example a patches3d node's set holds after a batch, for volumes of {@code volumeValues} values and
     * {@code tokens} tokens of {@code width}: volume, rows and rowsGrad (the volume's values each), projected and
     * sequence ([T, width] each), and work (the larger of the two). Bias and positions do not grow with the batch.
     */
    static long patchesFloatsPerExample(long volumeValues, long tokens, long width) {
        long sequence = tokens * width;
        return 3 * volumeValues + 2 * sequence + Math.max(volumeValues, sequence);
    }

    /**
     * Floats per example an unpatch3d node's set holds after a batch, for {@code tokens} tokens of {@code features}
     * and volumes of {@code volumeValues} values: sequence, rows and rowsGrad ([T, F] each), projected and volume (the
     * volume's values each), and work (the larger of the two).
     */
    static long unpatchFloatsPerExample(long volumeValues, long tokens, long features) {
        long sequence = tokens * features;
        return 2 * volumeValues + 3 * sequence + Math.max(volumeValues, sequence);
    }

    /** The set the calling thread's recomputing nodes share. */
    static VolumePatchBuffers shared() {
        return SHARED.get();
    }
}
