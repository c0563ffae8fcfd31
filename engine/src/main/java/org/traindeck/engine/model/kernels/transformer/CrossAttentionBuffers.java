package org.traindeck.engine.model.kernels.transformer;

import org.traindeck.engine.model.kernels.TransformerBlockBuffers.Region;

/**
 * A cross-attention's buffers for one (minibatch, steps, context steps): native regions for the products, the norm's
 * statistics on the heap; kept from the forward pass for the backward pass.
 */
final class CrossAttentionBuffers {

    final int width;
    final int heads;
    final int mb;
    final int steps;
    final int contextSteps;
    /** The queries' input (the norm's output, or the tokens) [mb T, W]. */
    final Region normed;

    final Region queries;
    /** Keys then values of each context row, [mb S, 2W]. */
    final Region keysValues;

    final Region contextRows;
    /** Per example its heads' P^T side by side, [S, heads T] ({@link TransformerBlockSoftmax}'s layout). */
    final Region probabilities;
    /** The attended values [mb T, W]; in the backward pass their gradient. */
    final Region attended;

    final Region product;
    final Region dQueries;
    final Region dKeysValues;
    /** One example's score gradients, laid out as its probabilities. */
    final Region dScores;

    final float[] xhat;
    final float[] rstd;
    final float[] scratch;
    /** Rows read back from a product, [mb T, W] or [mb S, 2W]: the biases' and the gradients' passes. */
    final float[] rows;
    /** One example's probabilities and score gradients on the heap, and two rows of heads T for the softmax. */
    final float[] block;

    final float[] dBlock;
    final float[] column;
    final float[] expScratch;

    CrossAttentionBuffers(int width, int heads, int mb, int steps, int contextSteps) {
        this.width = width;
        this.heads = heads;
        this.mb = mb;
        this.steps = steps;
        this.contextSteps = contextSteps;
        long n = (long) mb * steps * width;
        long m = (long) mb * contextSteps * width;
        normed = Region.allocate(n);
        queries = Region.allocate(n);
        keysValues = Region.allocate(2 * m);
        contextRows = Region.allocate(m);
        probabilities = Region.allocate((long) mb * heads * steps * contextSteps);
        attended = Region.allocate(n);
        product = Region.allocate(n);
        dQueries = Region.allocate(n);
        dKeysValues = Region.allocate(2 * m);
        dScores = Region.allocate((long) heads * steps * contextSteps);
        xhat = new float[(int) n];
        rstd = new float[mb * steps];
        scratch = new float[(int) Math.max(n, m)];
        rows = new float[(int) Math.max(n, 2 * m)];
        block = new float[heads * steps * contextSteps];
        dBlock = new float[block.length];
        column = new float[heads * steps];
        expScratch = new float[heads * steps];
    }

    boolean fits(int mb, int steps, int contextSteps) {
        return this.mb == mb && this.steps == steps && this.contextSteps == contextSteps;
    }

    void free() {
        for (Region r : new Region[] {
            normed, queries, keysValues, contextRows, probabilities, attended, product, dQueries, dKeysValues, dScores
        }) {
            r.free();
        }
    }
}
