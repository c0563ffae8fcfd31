package org.traindeck.engine.model.kernels;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.random.impl.BernoulliDistribution;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The block's two inverted-dropout masks [rows, C] (values 0 or 1/keep, the first after the attention, the second
 * after the MLP), drawn from ND4J's RNG so that the network's seed governs them, and kept on the heap for the loops.
 */
final class TransformerBlockDropout {

    private INDArray drawn;
    private float[] masks;

    /** Draws both masks for {@code rows} rows of {@code width} and returns them, one after the other. */
    float[] draw(int rows, int width, double dropout) {
        int n = 2 * rows * width;
        if (drawn == null || drawn.length() != n) {
            try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
                drawn = Nd4j.createUninitializedDetached(DataType.FLOAT, n);
            }
            masks = new float[n];
        }
        double keep = 1 - dropout;
        Nd4j.getExecutioner().exec(new BernoulliDistribution(drawn, keep), Nd4j.getRandom());
        Sgemm.buffer(drawn).get(0, masks, 0, n);
        TransformerBlockMath.scale(masks, n, (float) (1 / keep));
        return masks;
    }
}
