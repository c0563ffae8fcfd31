package org.traindeck.engine.model.kernels.transformer;

import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.DropoutMasks;

/**
 * The block's inverted-dropout masks [rows, C] (values 0 or 1/keep, the first after the attention, the second
 * after the MLP, a third after the cross-attention), drawn from a seed taken from ND4J's RNG so that the network's seed governs them ({@link
 * DropoutMasks}), and kept on the heap for the loops.
 */
final class TransformerBlockDropout {

    private float[] masks;

    /** Draws {@code count} masks (a branch's each) for {@code rows} rows of {@code width}, one after the other. */
    float[] draw(int count, int rows, int width, double dropout) {
        int n = count * rows * width;
        if (masks == null || masks.length != n) {
            masks = new float[n];
        }
        DropoutMasks.fill(masks, n, Nd4j.getRandom().nextLong(), dropout);
        return masks;
    }
}
