package org.traindeck.engine.model.kernels.transformer;

import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_NORM_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_NORM_GAIN;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_OUT_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_OUT_WEIGHTS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_QKV_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_QKV_WEIGHTS;

import org.traindeck.engine.model.kernels.BlockParameters;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * The cross-attention's backward pass around its heads ({@link CrossAttentionHeads}): the output projection's, the
 * biases', the projections' and the norm's gradients, on the buffers the forward pass left.
 */
final class CrossAttentionBackward {

    private CrossAttentionBackward() {}

    /** From the output's gradient: bo's and Wo's gradients, and the attended values' (in attended's place). */
    static void output(
            CrossAttentionBuffers b, float[] dOut, BlockParameters p, float[] mask, int maskAt, float[][] local) {
        int c = b.width;
        int n = b.mb * b.steps;
        float[] d = b.rows;
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
        // the attended values' gradient, in attended's place (its values are no longer needed)
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
    }

    /** bqkv's gradient: the column sums of the queries' and the keys' and values' gradients. */
    static void biases(CrossAttentionBuffers b, BlockParameters p, float[][] local) {
        int c = b.width;
        int n = b.mb * b.steps;
        int m = b.mb * b.contextSteps;
        float[] sums = new float[3 * c];
        float[] qSums = new float[c];
        float[] kvSums = new float[2 * c];
        b.dQueries.read(b.rows, n * c);
        TransformerBlockMath.columnSums(b.rows, n, c, qSums, local[0]);
        b.dKeysValues.read(b.rows, m * 2 * c);
        TransformerBlockMath.columnSums(b.rows, m, 2 * c, kvSums, local[0]);
        System.arraycopy(qSums, 0, sums, 0, c);
        System.arraycopy(kvSums, 0, sums, c, 2 * c);
        p.setGradient(CROSS_QKV_BIAS, sums, 3 * c);
    }

    /** Wqkv's gradient. */
    static void weights(CrossAttentionBuffers b, BlockParameters p) {
        int c = b.width;
        int n = b.mb * b.steps;
        int m = b.mb * b.contextSteps;
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
    }

    /** The gradients of the queries' input (into product) and of the context rows (into contextRows). */
    static void inputs(CrossAttentionBuffers b, BlockParameters p) {
        int c = b.width;
        int n = b.mb * b.steps;
        int m = b.mb * b.contextSteps;
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
    }

    /**
     * dOut becomes the input's gradient: the residual's (dOut itself, or none) plus the norm's backward of dh (which
     * may be b.rows; b.scratch is the norm's scratch).
     */
    static void throughNorm(
            CrossAttentionBuffers b,
            float[] dh,
            float[] dOut,
            BlockParameters p,
            boolean preNorm,
            boolean residual,
            float[][] local) {
        int c = b.width;
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
                dh, b.xhat, b.rstd, p.vector(CROSS_NORM_GAIN), dr, dOut, dGain, dBias, b.scratch, n, c, local);
        p.setGradient(CROSS_NORM_GAIN, dGain, c);
        p.setGradient(CROSS_NORM_BIAS, dBias, c);
    }
}
