package org.traindeck.engine.model.kernels;

import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationGELU;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationLReLU;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.activations.impl.ActivationSigmoid;
import org.nd4j.linalg.activations.impl.ActivationTanH;

/**
 * The activations the kernels compute themselves, with ND4J's own formulas (so a kernel and DL4J's layer agree):
 * GELU is ND4J's default, the sigmoid approximation x·σ(1.702x), not the erf form. Derivatives are taken from the
 * pre-activation, as DL4J's layers do.
 */
public enum KernelActivation {
    IDENTITY,
    RELU,
    LEAKYRELU,
    TANH,
    SIGMOID,
    GELU;

    /** The kernel's version of {@code fn}, or null when the kernels leave it to DL4J's layers. */
    public static KernelActivation of(IActivation fn) {
        if (fn == null || fn instanceof ActivationIdentity) {
            return IDENTITY;
        }
        if (fn instanceof ActivationReLU) {
            return fn.equals(new ActivationReLU()) ? RELU : null; // a capped or thresholded ReLU is DL4J's
        }
        if (fn instanceof ActivationLReLU l) {
            return l.getAlpha() == ActivationLReLU.DEFAULT_ALPHA ? LEAKYRELU : null;
        }
        if (fn instanceof ActivationTanH) {
            return TANH;
        }
        if (fn instanceof ActivationSigmoid) {
            return SIGMOID;
        }
        if (fn instanceof ActivationGELU g) {
            return g.isPrecise() ? null : GELU;
        }
        return null;
    }

    /**
     * out[i] = f(z[i]) for i in [0, n); {@code saved} receives what the backward pass needs beyond z (tanh's and the
     * sigmoids' values), so that it computes no exponential again.
     */
    public void forward(float[] z, float[] out, float[] saved, int n) {
        switch (this) {
            case IDENTITY -> System.arraycopy(z, 0, out, 0, n);
            // max and min, not a comparison: C2 vectorises them, a data-dependent branch on random signs costs ~40x
            case RELU -> {
                for (int i = 0; i < n; i++) {
                    out[i] = Math.max(z[i], 0f);
                }
            }
            case LEAKYRELU -> {
                float alpha = (float) ActivationLReLU.DEFAULT_ALPHA;
                for (int i = 0; i < n; i++) {
                    out[i] = Math.max(z[i], alpha * z[i]);
                }
            }
            case TANH -> {
                for (int i = 0; i < n; i++) {
                    float t = (float) Math.tanh(z[i]);
                    saved[i] = t;
                    out[i] = t;
                }
            }
            case SIGMOID -> sigmoid(z, 1f, out, saved, n);
            case GELU -> {
                GeluSigmoid.sigmoids(z, saved, out, n);
                for (int i = 0; i < n; i++) {
                    out[i] = z[i] * saved[i];
                }
            }
        }
    }

    /**
     * saved[i] = out[i] = sigmoid(k z[i]), with the vectorised float exp of the transformer kernel (Math.exp in double
     * is scalar and 10-25 ns a call); out serves as the exponentials' scratch.
     */
    private static void sigmoid(float[] z, float k, float[] out, float[] saved, int n) {
        for (int i = 0; i < n; i++) {
            saved[i] = -k * z[i];
        }
        FloatExp.expInPlace(saved, out, 0, n);
        for (int i = 0; i < n; i++) {
            float sg = 1 / (1 + saved[i]);
            saved[i] = sg;
            out[i] = sg;
        }
    }

    /** g[i] *= f'(z[i]) for i in [0, n), with what {@link #forward} saved. */
    public void backward(float[] z, float[] saved, float[] g, int n) {
        switch (this) {
            case IDENTITY -> {}
            case RELU -> {
                for (int i = 0; i < n; i++) {
                    g[i] *= positive(z[i]);
                }
            }
            case LEAKYRELU -> {
                float alpha = (float) ActivationLReLU.DEFAULT_ALPHA;
                for (int i = 0; i < n; i++) {
                    g[i] *= Math.max(positive(z[i]), alpha);
                }
            }
            case TANH -> {
                for (int i = 0; i < n; i++) {
                    float t = saved[i];
                    g[i] *= 1f - t * t;
                }
            }
            case SIGMOID -> {
                for (int i = 0; i < n; i++) {
                    float sg = saved[i];
                    g[i] *= sg * (1f - sg);
                }
            }
            case GELU -> {
                for (int i = 0; i < n; i++) {
                    // d/dx x·σ(kx) = σ(kx) + kx·σ(kx)(1 − σ(kx))
                    float sg = saved[i];
                    g[i] *= sg + 1.702f * z[i] * sg * (1f - sg);
                }
            }
        }
    }

    /**
     * 1 for z > 0, else 0 (ReLU's derivative as ND4J's relu_bp takes it: 0 at 0), without a branch: z times 2^254 (two
     * factors, so that even the smallest subnormal reaches 1 and nothing is folded into an infinite constant) clamped to
     * [0, 1]. NaN stays NaN.
     */
    private static float positive(float z) {
        return Math.min(Math.max(z * 0x1p127f * 0x1p127f, 0f), 1f);
    }

    /** Whether {@link #forward} fills {@code saved}. */
    public boolean saves() {
        return this == TANH || this == SIGMOID || this == GELU;
    }
}
