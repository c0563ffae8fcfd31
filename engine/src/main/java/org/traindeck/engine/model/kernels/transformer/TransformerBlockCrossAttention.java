package org.traindeck.engine.model.kernels.transformer;

import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_NORM_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_NORM_GAIN;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_OUT_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_OUT_WEIGHTS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_QKV_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_QKV_WEIGHTS;

import org.traindeck.engine.model.kernels.BlockParameters;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers.Region;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

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
        TransformerBlockMath.toRows(context, b.scratch, mb, width, contextSteps);
        b.contextRows.write(b.scratch, mb * contextSteps * width);
        normalise(r, p, local);
        project(p);
        CrossAttentionHeads.forward(b);
        output(r, p, mask, maskAt, out, local);
    }

    /** The queries' input: the norm of r (pre-norm) or r itself, into normed. */
    private void normalise(float[] r, BlockParameters p, float[][] local) {
        int c = width;
        int n = b.mb * b.steps;
        float[] h = r;
        if (preNorm) {
            // the context rows are in native memory already: scratch is free
            h = b.scratch;
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
    }

    /** Queries from normed, keys and values from the context rows, with their biases. */
    private void project(BlockParameters p) {
        int c = width;
        int n = b.mb * b.steps;
        int m = b.mb * b.contextSteps;
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
    }

    /** out = (r or nothing) + mask (attended Wo + bo). */
    private void output(float[] r, BlockParameters p, float[] mask, int maskAt, float[] out, float[][] local) {
        int c = width;
        int n = b.mb * b.steps;
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
        float[] rows = b.rows;
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
        CrossAttentionBackward.output(b, dOut, p, mask, maskAt, local);
        CrossAttentionHeads.backward(b);
        CrossAttentionBackward.biases(b, p, local);
        CrossAttentionBackward.weights(b, p);
        CrossAttentionBackward.inputs(b, p);
        b.product.read(b.rows, n * c);
        CrossAttentionBackward.throughNorm(b, b.rows, dOut, p, preNorm, residual, local);
        b.contextRows.read(b.rows, m * c);
        float[] dContext = new float[m * c];
        TransformerBlockMath.fromRows(b.rows, dContext, b.mb, c, b.contextSteps);
        return dContext;
    }
}
