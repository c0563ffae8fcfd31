package org.traindeck.engine.model.kernels;

import static org.traindeck.engine.model.kernels.TransformerBlockParams.CROSS_NORM_BIAS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.CROSS_NORM_GAIN;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.CROSS_OUT_BIAS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.CROSS_OUT_WEIGHTS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.CROSS_QKV_BIAS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.CROSS_QKV_WEIGHTS;

import org.traindeck.engine.model.kernels.TransformerBlockBuffers.Region;

/**
 * A cross-attention on rows: in the block pre-norm and added back, out = r + mask (attention(norm(r), context) Wo +
 * bo); as the crossAttention node neither (out = attention(r, context) Wo + bo). The
 * queries come from norm(r) [rows, W] and the keys and values from the context tokens [mb S, W], with one [W, 3W]
 * projection as the self-attention's (columns: queries, keys, values; a PyTorch MultiheadAttention's in_proj
 * transposed). Per example and head P = softmax(Q K^T / sqrt(d)) [T, S] and O = P V; it keeps what its backward pass
 * needs (P, the projections, the norm's statistics) until the next forward pass.
 */
final class TransformerBlockCrossAttention {

    private final int width;
    private final int heads;
    private int mb;
    private int steps;
    private int contextSteps;
    private Region normed;
    private Region queries;
    private Region keysValues;
    private Region contextRows;
    private Region probabilities;
    private Region attended;
    private Region product;
    private Region dQueries;
    private Region dKeysValues;
    private Region dScores;
    private float[] xhat;
    private float[] rstd;
    private float[] scratch;

    /** Whether a layer norm comes before it (the block's), whether its input is added back (the block's). */
    private final boolean preNorm;

    private final boolean residual;

    TransformerBlockCrossAttention(int width, int heads, boolean normed, boolean residual) {
        this.width = width;
        this.heads = heads;
        this.preNorm = normed;
        this.residual = residual;
    }

    private void size(int mb, int steps, int contextSteps) {
        if (normed != null && this.mb == mb && this.steps == steps && this.contextSteps == contextSteps) {
            return;
        }
        free();
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
        dScores = Region.allocate((long) steps * contextSteps);
        xhat = new float[(int) n];
        rstd = new float[mb * steps];
        scratch = new float[(int) Math.max(n, m)];
    }

    void free() {
        for (Region r : new Region[] {
            normed, queries, keysValues, contextRows, probabilities, attended, product, dQueries, dKeysValues, dScores
        }) {
            if (r != null) {
                r.free();
            }
        }
        normed = null;
    }

    /**
     * out = r + mask (cross-attention(norm(r), context) Wo + bo) on rows [mb T, W]; {@code context} is [mb, W, S] in
     * c order. {@code local}: four chunk-sized arrays.
     */
    void forward(
            float[] r,
            float[] context,
            int mb,
            int steps,
            int contextSteps,
            BlockParameters p,
            float[] mask,
            int maskAt,
            float[] out,
            float[][] local) {
        size(mb, steps, contextSteps);
        int c = width;
        int n = mb * steps;
        int m = mb * contextSteps;
        TransformerBlockMath.toRows(context, scratch, mb, c, contextSteps);
        contextRows.write(scratch, m * c);
        float[] h = r;
        if (preNorm) {
            h = new float[n * c];
            TransformerBlockMath.layerNorm(
                    r,
                    xhat,
                    rstd,
                    h,
                    p.vector(CROSS_NORM_GAIN),
                    p.vector(CROSS_NORM_BIAS),
                    n,
                    c,
                    TransformerBlock.EPSILON,
                    local[0]);
        }
        normed.write(h, n * c);
        float[] bias = p.vector(CROSS_QKV_BIAS);
        Sgemm.multiply(
                false,
                false,
                n,
                c,
                c,
                1,
                normed.pointer,
                0,
                c,
                p.pointer(CROSS_QKV_WEIGHTS),
                0,
                3 * c,
                0,
                queries.pointer,
                0,
                c);
        addBias(queries, n, c, bias, 0);
        Sgemm.multiply(
                false,
                false,
                m,
                2 * c,
                c,
                1,
                contextRows.pointer,
                0,
                c,
                p.pointer(CROSS_QKV_WEIGHTS),
                c,
                3 * c,
                0,
                keysValues.pointer,
                0,
                2 * c);
        addBias(keysValues, m, 2 * c, bias, c);
        CrossAttentionHeads.forward(this, mb, steps, contextSteps);
        Sgemm.multiply(
                false,
                false,
                n,
                c,
                c,
                1,
                attended.pointer,
                0,
                c,
                p.pointer(CROSS_OUT_WEIGHTS),
                0,
                c,
                0,
                product.pointer,
                0,
                c);
        product.read(scratch, n * c);
        TransformerBlockMath.residual(
                residual ? r : new float[n * c], scratch, p.vector(CROSS_OUT_BIAS), mask, maskAt, out, n, c, local);
    }

    /** rows [n, cols] of a region += bias[from, from + cols). */
    private void addBias(Region region, int n, int cols, float[] bias, int from) {
        float[] rows = new float[n * cols];
        region.read(rows, n * cols);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < cols; j++) {
                rows[i * cols + j] += bias[from + j];
            }
        }
        region.write(rows, n * cols);
    }

    /**
     * The backward pass: {@code dOut} (the output's gradient, [mb T, W]) becomes r's, in place; the parameters'
     * gradients are written; returns the context's gradient [mb, W, S] (c order).
     */
    float[] backward(float[] dOut, BlockParameters p, float[] mask, int maskAt, float[][] local) {
        int c = width;
        int n = mb * steps;
        int m = mb * contextSteps;
        float[] d = new float[n * c];
        TransformerBlockMath.masked(dOut, mask, maskAt, d, n * c);
        float[] sums = new float[3 * c];
        TransformerBlockMath.columnSums(d, n, c, sums, local[0]);
        p.setGradient(CROSS_OUT_BIAS, sums, c);
        product.write(d, n * c);
        Sgemm.multiply(
                true,
                false,
                c,
                c,
                n,
                1,
                attended.pointer,
                0,
                c,
                product.pointer,
                0,
                c,
                0,
                p.gradientPointer(CROSS_OUT_WEIGHTS),
                0,
                c);
        // the attended values' gradient, in attended's place (its values are no longer needed)
        Sgemm.multiply(
                false,
                true,
                n,
                c,
                c,
                1,
                product.pointer,
                0,
                c,
                p.pointer(CROSS_OUT_WEIGHTS),
                0,
                c,
                0,
                attended.pointer,
                0,
                c);
        CrossAttentionHeads.backward(this, mb, steps, contextSteps);
        float[] dq = new float[n * c];
        dQueries.read(dq, n * c);
        float[] dkv = new float[m * 2 * c];
        dKeysValues.read(dkv, m * 2 * c);
        float[] qSums = new float[c];
        float[] kvSums = new float[2 * c];
        TransformerBlockMath.columnSums(dq, n, c, qSums, local[0]);
        TransformerBlockMath.columnSums(dkv, m, 2 * c, kvSums, local[0]);
        System.arraycopy(qSums, 0, sums, 0, c);
        System.arraycopy(kvSums, 0, sums, c, 2 * c);
        p.setGradient(CROSS_QKV_BIAS, sums, 3 * c);
        Sgemm.multiply(
                true,
                false,
                c,
                c,
                n,
                1,
                normed.pointer,
                0,
                c,
                dQueries.pointer,
                0,
                c,
                0,
                p.gradientPointer(CROSS_QKV_WEIGHTS),
                0,
                3 * c);
        Sgemm.multiply(
                true,
                false,
                c,
                2 * c,
                m,
                1,
                contextRows.pointer,
                0,
                c,
                dKeysValues.pointer,
                0,
                2 * c,
                0,
                p.gradientPointer(CROSS_QKV_WEIGHTS),
                c,
                3 * c);
        // the norm's output gradient into product, the context rows' into contextRows (both read no more)
        Sgemm.multiply(
                false,
                true,
                n,
                c,
                c,
                1,
                dQueries.pointer,
                0,
                c,
                p.pointer(CROSS_QKV_WEIGHTS),
                0,
                3 * c,
                0,
                product.pointer,
                0,
                c);
        Sgemm.multiply(
                false,
                true,
                m,
                c,
                2 * c,
                1,
                dKeysValues.pointer,
                0,
                2 * c,
                p.pointer(CROSS_QKV_WEIGHTS),
                c,
                3 * c,
                0,
                contextRows.pointer,
                0,
                c);
        product.read(d, n * c);
        inputGradient(d, dOut, p, local);
        float[] rows = new float[m * c];
        contextRows.read(rows, m * c);
        float[] dContext = new float[m * c];
        TransformerBlockMath.fromRows(rows, dContext, mb, c, contextSteps);
        return dContext;
    }

    /** dOut becomes the input's gradient: the residual's (dOut itself, or none) plus the norm's backward of dh. */
    private void inputGradient(float[] dh, float[] dOut, BlockParameters p, float[][] local) {
        int c = width;
        int n = mb * steps;
        float[] dr = residual ? dOut : new float[n * c];
        if (!preNorm) {
            for (int i = 0; i < n * c; i++) {
                dOut[i] = dr[i] + dh[i];
            }
            return;
        }
        float[] dGain = new float[c];
        float[] dBias = new float[c];
        TransformerBlockMath.layerNormBackward(
                dh, xhat, rstd, p.vector(CROSS_NORM_GAIN), dr, dOut, dGain, dBias, new float[n * c], n, c, local);
        p.setGradient(CROSS_NORM_GAIN, dGain, c);
        p.setGradient(CROSS_NORM_BIAS, dBias, c);
    }

    int width() {
        return width;
    }

    int heads() {
        return heads;
    }

    Region queries() {
        return queries;
    }

    Region keysValues() {
        return keysValues;
    }

    Region probabilities() {
        return probabilities;
    }

    /** The attended values [rows, W]; in the backward pass their gradient. */
    Region attended() {
        return attended;
    }

    Region dQueries() {
        return dQueries;
    }

    Region dKeysValues() {
        return dKeysValues;
    }

    Region dScores() {
        return dScores;
    }
}
