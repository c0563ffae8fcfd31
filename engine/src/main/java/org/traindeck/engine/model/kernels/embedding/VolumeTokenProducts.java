package org.traindeck.engine.model.kernels.embedding;

import org.bytedeco.javacpp.FloatPointer;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * The products of the patches3d and unpatch3d kernels, one {@link Sgemm} call per example, reading and writing the
 * tokens in the graph's own layout [mb, features, T]: a token sequence never has to be transposed into rows [mb·T,
 * features] and back, which at the x-ray stage's sizes cost more than the products. Patch rows are [mb·T, length]
 * ({@link VolumePatches}); a patches3d W is [length, width], an unpatch3d W [features, length].
 */
final class VolumeTokenProducts {

    private VolumeTokenProducts() {}

    /** A matrix operand: example e's matrix starts at e · stride (0: one matrix for every example), leading dim ld. */
    private record Operand(FloatPointer data, long stride, int ld) {}

    /** patches3d forward: tokens_e [width, T] += Wᵀ rows_eᵀ. */
    static void tokens(VolumePatches v, int width, FloatPointer rows, FloatPointer w, FloatPointer tokens) {
        int n = v.tokens();
        int length = v.rowLength();
        eachExample(v, true, true, width, n, length, shared(w, width), rowsOf(v, rows), 1, tokensOf(v, tokens, width));
    }

    /** patches3d: dW [length, width] = Σ_e rows_eᵀ dY_eᵀ, dY the tokens' gradient [mb, width, T]. */
    static void weightGradient(VolumePatches v, int width, FloatPointer rows, FloatPointer dY, FloatPointer dW) {
        int length = v.rowLength();
        eachExample(
                v,
                true,
                true,
                length,
                width,
                v.tokens(),
                rowsOf(v, rows),
                tokensOf(v, dY, width),
                0,
                shared(dW, width));
    }

    /** patches3d: d rows_e [T, length] = dY_eᵀ Wᵀ. */
    static void rowsGradient(VolumePatches v, int width, FloatPointer dY, FloatPointer w, FloatPointer rowsGrad) {
        int length = v.rowLength();
        eachExample(
                v,
                true,
                true,
                v.tokens(),
                length,
                width,
                tokensOf(v, dY, width),
                shared(w, width),
                0,
                rowsOf(v, rowsGrad));
    }

    /** unpatch3d forward: rows_e [T, length] = x_eᵀ W, x the tokens [mb, features, T]. */
    static void rows(VolumePatches v, int features, FloatPointer x, FloatPointer w, FloatPointer rows) {
        int length = v.rowLength();
        eachExample(
                v,
                true,
                false,
                v.tokens(),
                length,
                features,
                tokensOf(v, x, features),
                shared(w, length),
                0,
                rowsOf(v, rows));
    }

    /** unpatch3d: dW [features, length] = Σ_e x_e dRows_e. */
    static void unpatchWeightGradient(
            VolumePatches v, int features, FloatPointer x, FloatPointer rowsGrad, FloatPointer dW) {
        int length = v.rowLength();
        eachExample(
                v,
                false,
                false,
                features,
                length,
                v.tokens(),
                tokensOf(v, x, features),
                rowsOf(v, rowsGrad),
                0,
                shared(dW, length));
    }

    /** unpatch3d: dx_e [features, T] = W dRows_eᵀ. */
    static void tokensGradient(VolumePatches v, int features, FloatPointer rowsGrad, FloatPointer w, FloatPointer dx) {
        int length = v.rowLength();
        eachExample(
                v,
                false,
                true,
                features,
                v.tokens(),
                length,
                shared(w, length),
                rowsOf(v, rowsGrad),
                0,
                tokensOf(v, dx, features));
    }

    /**
     * c_e = a_e · b_e + beta · c_e for every example; where c is one matrix for all (a weight's gradient) the products
     * are summed into it, the first overwriting it unless beta is 1.
     */
    private static void eachExample(
            VolumePatches v,
            boolean transA,
            boolean transB,
            int m,
            int n,
            int k,
            Operand a,
            Operand b,
            float beta,
            Operand c) {
        for (int e = 0; e < v.examples(); e++) {
            float betaHere = c.stride() == 0 && e > 0 ? 1 : beta;
            Sgemm.multiply(
                    transA,
                    transB,
                    m,
                    n,
                    k,
                    1,
                    a.data(),
                    e * a.stride(),
                    a.ld(),
                    b.data(),
                    e * b.stride(),
                    b.ld(),
                    betaHere,
                    c.data(),
                    e * c.stride(),
                    c.ld());
        }
    }

    private static Operand shared(FloatPointer weight, int ld) {
        return new Operand(weight, 0, ld);
    }

    /** Patch rows [mb·T, length]: example e's [T, length] block. */
    private static Operand rowsOf(VolumePatches v, FloatPointer rows) {
        return new Operand(rows, (long) v.tokens() * v.rowLength(), v.rowLength());
    }

    /** Tokens [mb, features, T]: example e's [features, T] block. */
    private static Operand tokensOf(VolumePatches v, FloatPointer tokens, int features) {
        return new Operand(tokens, (long) features * v.tokens(), v.tokens());
    }
}
