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
    private CrossAttentionBuffers b;

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
        if (b == null || !b.fits(mb, steps, contextSteps)) {
            if (b != null) {
                b.free();
            }
            b = new CrossAttentionBuffers(width, heads, mb, steps, contextSteps);
        }
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
        TransformerBlockMath.toRows(context, b.scratch, mb, c, contextSteps);
        b.contextRows.write(b.scratch, m * c);
        float[] h = r;
        if (preNorm) {
            h = new float[n * c];
            TransformerBlockMath.layerNorm(
                    r,
                    b.xhat,
                    b.rstd,
                    h,
                    p.vector(CROSS_NORM_GAIN),
                    p.vector(CROSS_NORM_BIAS),
                    n,
                    c,
                    TransformerBlock.EPSILON,
                    local[0]);
        }
        b.normed.write(h, n * c);
        float[] bias = p.vector(CROSS_QKV_BIAS);
        Sgemm.multiply(
                false,
                false,
                n,
                c,
                c,
                1,
                b.normed.pointer,
                0,
                c,
                p.pointer(CROSS_QKV_WEIGHTS),
                0,
                3 * c,
                0,
                b.queries.pointer,
                0,
                c);
        addBias(b.queries, n, c, bias, 0);
        Sgemm.multiply(
                false,
                false,
                m,
                2 * c,
                c,
                1,
                b.contextRows.pointer,
                0,
                c,
                p.pointer(CROSS_QKV_WEIGHTS),
                c,
                3 * c,
                0,
                b.keysValues.pointer,
                0,
                2 * c);
        addBias(b.keysValues, m, 2 * c, bias, c);
        CrossAttentionHeads.forward(b);
        Sgemm.multiply(
                false,
                false,
                n,
                c,
                c,
                1,
                b.attended.pointer,
                0,
                c,
                p.pointer(CROSS_OUT_WEIGHTS),
                0,
                c,
                0,
                b.product.pointer,
                0,
                c);
        b.product.read(b.scratch, n * c);
        TransformerBlockMath.residual(
                residual ? r : new float[n * c], b.scratch, p.vector(CROSS_OUT_BIAS), mask, maskAt, out, n, c, local);
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
        int n = b.mb * b.steps;
        int m = b.mb * b.contextSteps;
        float[] d = new float[n * c];
        TransformerBlockMath.masked(dOut, mask, maskAt, d, n * c);
        float[] sums = new float[3 * c];
        TransformerBlockMath.columnSums(d, n, c, sums, local[0]);
        p.setGradient(CROSS_OUT_BIAS, sums, c);
        b.product.write(d, n * c);
        Sgemm.multiply(
                true,
                false,
                c,
                c,
                n,
                1,
                b.attended.pointer,
                0,
                c,
                b.product.pointer,
                0,
                c,
                0,
                p.gradientPointer(CROSS_OUT_WEIGHTS),
                0,
                c);
        // the b.attended values' gradient, in attended's place (its values are no longer needed)
        Sgemm.multiply(
                false,
                true,
                n,
                c,
                c,
                1,
                b.product.pointer,
                0,
                c,
                p.pointer(CROSS_OUT_WEIGHTS),
                0,
                c,
                0,
                b.attended.pointer,
                0,
                c);
        CrossAttentionHeads.backward(b);
        float[] dq = new float[n * c];
        b.dQueries.read(dq, n * c);
        float[] dkv = new float[m * 2 * c];
        b.dKeysValues.read(dkv, m * 2 * c);
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
                b.normed.pointer,
                0,
                c,
                b.dQueries.pointer,
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
                b.contextRows.pointer,
                0,
                c,
                b.dKeysValues.pointer,
                0,
                2 * c,
                0,
                p.gradientPointer(CROSS_QKV_WEIGHTS),
                c,
                3 * c);
        // the norm's output gradient into b.product, the context rows' into b.contextRows (both read no more)
        Sgemm.multiply(
                false,
                true,
                n,
                c,
                c,
                1,
                b.dQueries.pointer,
                0,
                c,
                p.pointer(CROSS_QKV_WEIGHTS),
                0,
                3 * c,
                0,
                b.product.pointer,
                0,
                c);
        Sgemm.multiply(
                false,
                true,
                m,
                c,
                2 * c,
                1,
                b.dKeysValues.pointer,
                0,
                2 * c,
                p.pointer(CROSS_QKV_WEIGHTS),
                c,
                3 * c,
                0,
                b.contextRows.pointer,
                0,
                c);
        b.product.read(d, n * c);
        inputGradient(d, dOut, p, local);
        float[] rows = new float[m * c];
        b.contextRows.read(rows, m * c);
        float[] dContext = new float[m * c];
        TransformerBlockMath.fromRows(rows, dContext, b.mb, c, b.contextSteps);
        return dContext;
    }

    /** dOut becomes the input's gradient: the residual's (dOut itself, or none) plus the norm's backward of dh. */
    private void inputGradient(float[] dh, float[] dOut, BlockParameters p, float[][] local) {
        int c = width;
        int n = b.mb * b.steps;
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
                dh, b.xhat, b.rstd, p.vector(CROSS_NORM_GAIN), dr, dOut, dGain, dBias, new float[n * c], n, c, local);
        p.setGradient(CROSS_NORM_GAIN, dGain, c);
        p.setGradient(CROSS_NORM_BIAS, dBias, c);
    }
}
