package org.traindeck.engine.model.kernels;

/**
 * DL4J's GELU, x sigmoid(1.702 x) (ND4J's non-precise gelu op), with the sigmoid as 0.5 + 0.5 tanh(0.851 x) and tanh
 * as Eigen's rational approximation (its {@code generic_fast_tanh_float}: an odd polynomial of degree 13 over an even
 * one of degree 6, the argument clamped to ±7.905, where the quotient reaches ±1 in float). Only multiplications,
 * additions, one division and min/max, in loops small enough for C2 (Java 17) to unroll, so that it vectorises them;
 * the exponential's sigmoid needs more work and a loop of its own for 2^n's float↔int bit moves (GeluTiming: 1.18
 * against 1.76 ns an element). Against double precision (GeluSigmoidTest): the
 * sigmoid within 2.1e-7 absolute, the GELU within 2.3e-7 |x| and its slope within 2.4e-6 (the exponential's
 * 1/(1 + e^-1.702x) came to 1.4e-7 |x| and 1e-6); below x = -9.3 the sigmoid is 0 (in double under 1.4e-7), and a
 * finite input never gives NaN. gelu(+inf) is +inf, gelu(-inf) and gelu(NaN) NaN, as x sigmoid(1.702 x) in float.
 */
public final class GeluSigmoid {

    /** DL4J's Activation.GELU (ND4J's non-precise gelu op): x sigmoid(1.702 x). */
    public static final float SCALE = 1.702f;

    /** sigmoid(1.702 x) = 0.5 + 0.5 tanh(x HALF_SCALE). */
    private static final float HALF_SCALE = SCALE * 0.5f;

    /** Where Eigen's rational tanh reaches ±1 in float. */
    private static final float CLAMP = 7.90531110763549805f;

    private GeluSigmoid() {}

    /** sigmoid(1.702 x) of one value, as the loops compute it (for tests and single values). */
    public static float sigmoid(float x) {
        float[] s = {x};
        float[] scratch = new float[1];
        sigmoids(s, s, scratch, 1);
        return s[0];
    }

    /** s[i] = sigmoid(1.702 x[i]) for i in [0, n); s may be x; {@code scratch} as long. */
    public static void sigmoids(float[] x, float[] s, float[] scratch, int n) {
        tanhTerms(x, s, scratch, n);
        for (int i = 0; i < n; i++) {
            s[i] = 0.5f + 0.5f * (s[i] / scratch[i]);
        }
    }

    /**
     * On one chunk (every array from index 0): u += bias; z = gelu(u) = u s with s = sigmoid(1.702 u); and the slope
     * gelu'(u) = s (1 + 1.702 u (1 - s)) into {@code slope}, the one thing the backward pass needs (it does not read u
     * and s back). The chunks keep the passes in the L1 cache: over whole arrays they are bound by memory bandwidth.
     */
    public static void biasGelu(float[] u, float[] biasTile, float[] slope, float[] z, int len) {
        for (int i = 0; i < len; i++) {
            float v = u[i] + biasTile[i];
            u[i] = v;
            float t = clamped(v);
            float t2 = t * t;
            slope[i] = numerator(t, t2);
            z[i] = denominator(t2);
        }
        for (int i = 0; i < len; i++) {
            float v = u[i];
            float sg = 0.5f + 0.5f * (slope[i] / z[i]);
            float gelu = v * sg;
            z[i] = gelu;
            // s + 1.702 (v s)(1 - s), not s (1 + 1.702 v (1 - s)): 1.702 v overflows past 2e38, where s is 0 or 1
            slope[i] = sg + SCALE * (gelu * (1 - sg));
        }
    }

    /**
     * The numerator (into {@code numerator}) and denominator (into {@code denominator}) of tanh(0.851 x[i]); a loop of
     * its own because with the division and what follows it the body is too large for C2 to unroll, and so stays
     * scalar (7 ns an element against under 1 ns).
     */
    private static void tanhTerms(float[] x, float[] numerator, float[] denominator, int n) {
        for (int i = 0; i < n; i++) {
            float t = clamped(x[i]);
            float t2 = t * t;
            numerator[i] = numerator(t, t2);
            denominator[i] = denominator(t2);
        }
    }

    /** tanh's argument 0.851 x, clamped to where the quotient is ±1 (NaN stays NaN). */
    private static float clamped(float x) {
        return Math.max(-CLAMP, Math.min(CLAMP, HALF_SCALE * x));
    }

    private static float numerator(float t, float t2) {
        float p = t2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
        p = p * t2 + -8.60467152213735e-11f;
        p = p * t2 + 5.12229709037114e-08f;
        p = p * t2 + 1.48572235717979e-05f;
        p = p * t2 + 6.37261928875436e-04f;
        p = p * t2 + 4.89352455891786e-03f;
        return p * t;
    }

    private static float denominator(float t2) {
        float q = t2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
        q = q * t2 + 2.26843463243900e-03f;
        return q * t2 + 4.89352518554385e-03f;
    }
}
