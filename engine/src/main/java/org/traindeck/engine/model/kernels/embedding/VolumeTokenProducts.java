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

    /** patches3d forward: tokens_e [width, T] += Wᵀ rows_eᵀ. */
    static void tokens(VolumePatches v, int width, FloatPointer rows, FloatPointer w, FloatPointer tokens) {
        int n = v.tokens();
        int length = v.rowLength();
        for (int e = 0; e < v.examples(); e++) {
            Sgemm.multiply(
                    true,
                    true,
                    width,
                    n,
                    length,
                    1,
                    w,
                    0,
                    width,
                    rows,
                    (long) e * n * length,
                    length,
                    1,
                    tokens,
                    (long) e * width * n,
                    n);
        }
    }

    /** patches3d: dW [length, width] = Σ_e rows_eᵀ dY_eᵀ, dY the tokens' gradient [mb, width, T]. */
    static void weightGradient(VolumePatches v, int width, FloatPointer rows, FloatPointer dY, FloatPointer dW) {
        int n = v.tokens();
        int length = v.rowLength();
        for (int e = 0; e < v.examples(); e++) {
            Sgemm.multiply(
                    true,
                    true,
                    length,
                    width,
                    n,
                    1,
                    rows,
                    (long) e * n * length,
                    length,
                    dY,
                    (long) e * width * n,
                    n,
                    e == 0 ? 0 : 1,
                    dW,
                    0,
                    width);
        }
    }

    /** patches3d: d rows_e [T, length] = dY_eᵀ Wᵀ. */
    static void rowsGradient(VolumePatches v, int width, FloatPointer dY, FloatPointer w, FloatPointer rowsGrad) {
        int n = v.tokens();
        int length = v.rowLength();
        for (int e = 0; e < v.examples(); e++) {
            Sgemm.multiply(
                    true,
                    true,
                    n,
                    length,
                    width,
                    1,
                    dY,
                    (long) e * width * n,
                    n,
                    w,
                    0,
                    width,
                    0,
                    rowsGrad,
                    (long) e * n * length,
                    length);
        }
    }

    /** unpatch3d forward: rows_e [T, length] = x_eᵀ W, x the tokens [mb, features, T]. */
    static void rows(VolumePatches v, int features, FloatPointer x, FloatPointer w, FloatPointer rows) {
        int n = v.tokens();
        int length = v.rowLength();
        for (int e = 0; e < v.examples(); e++) {
            Sgemm.multiply(
                    true,
                    false,
                    n,
                    length,
                    features,
                    1,
                    x,
                    (long) e * features * n,
                    n,
                    w,
                    0,
                    length,
                    0,
                    rows,
                    (long) e * n * length,
                    length);
        }
    }

    /** unpatch3d: dW [features, length] = Σ_e x_e dRows_e. */
    static void unpatchWeightGradient(
            VolumePatches v, int features, FloatPointer x, FloatPointer rowsGrad, FloatPointer dW) {
        int n = v.tokens();
        int length = v.rowLength();
        for (int e = 0; e < v.examples(); e++) {
            Sgemm.multiply(
                    false,
                    false,
                    features,
                    length,
                    n,
                    1,
                    x,
                    (long) e * features * n,
                    n,
                    rowsGrad,
                    (long) e * n * length,
                    length,
                    e == 0 ? 0 : 1,
                    dW,
                    0,
                    length);
        }
    }

    /** unpatch3d: dx_e [features, T] = W dRows_eᵀ. */
    static void tokensGradient(VolumePatches v, int features, FloatPointer rowsGrad, FloatPointer w, FloatPointer dx) {
        int n = v.tokens();
        int length = v.rowLength();
        for (int e = 0; e < v.examples(); e++) {
            Sgemm.multiply(
                    false,
                    true,
                    features,
                    n,
                    length,
                    1,
                    w,
                    0,
                    length,
                    rowsGrad,
                    (long) e * n * length,
                    length,
                    0,
                    dx,
                    (long) e * features * n,
                    n);
        }
    }
}
