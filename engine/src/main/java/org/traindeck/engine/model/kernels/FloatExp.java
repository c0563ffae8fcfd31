package org.traindeck.engine.model.kernels;

/**
 * e^x in float without Math.exp (double, 10-25 ns a call here): one value at a time, or in place over an array in
 * loops that C2 vectorises. The softmaxes, the cross-entropies, adaLN's SiLU and the dense kernel's sigmoid use it;
 * the GELU's sigmoid needs no exponential ({@link GeluSigmoid}).
 */
public final class FloatExp {

    private static final float LOG2E = 1.4426950408889634f;
    private static final float LN2_HIGH = 0.693145751953125f;
    private static final float LN2_LOW = 1.428606765330187e-06f;
    /** 1.5 * 2^23: adding it rounds a float below 2^22 to an integer, kept in the low mantissa bits. */
    private static final float ROUNDER = 12582912f;

    private static final int ROUNDER_BITS = 0x4B400000;
    /** Below this exp's 2^n would leave the normal range; e^x of anything lower is this one's value, 2.7e-38. */
    public static final float FLOOR = -86.5f;

    private static final float CEILING = 88f;

    private FloatExp() {}

    /**
     * e^x in float to about 2e-7 relative: x = n ln2 + r with |r| <= ln2/2, e^r by its Taylor polynomial of degree 6,
     * times 2^n built in the exponent bits. Math.exp (double, 10-25 ns a call here) was most of the softmax's time.
     */
    public static float exp(float x) {
        if (x < -87.3f) {
            return 0;
        }
        if (x > 88f) {
            return Float.POSITIVE_INFINITY;
        }
        float n = (float) Math.floor(x * LOG2E + 0.5f);
        float r = x - n * LN2_HIGH - n * LN2_LOW;
        float p = 1 + r * (1 + r * (0.5f + r * (1 / 6f + r * (1 / 24f + r * (1 / 120f + r * (1 / 720f))))));
        return p * Float.intBitsToFloat(((int) n + 127) << 23);
    }

    /**
     * a[i] = e^a[i] for i in [from, to), as {@link #exp} (arguments clamped to [-86.5, 88]: below, 2.7e-38, not 0), in
     * two loops that C2 vectorises: the polynomial in float (n rounded by adding 1.5 2^23, kept in {@code scratch}),
     * then 2^n added to the exponent bits. One loop mixing float arithmetic with the bit moves stays scalar (4 ns an
     * element here, against under 1 ns).
     */
    public static void expInPlace(float[] a, float[] scratch, int from, int to) {
        for (int i = from; i < to; i++) {
            float x = Math.max(FLOOR, Math.min(CEILING, a[i]));
            float t = x * LOG2E + ROUNDER;
            float n = t - ROUNDER;
            float r = x - n * LN2_HIGH - n * LN2_LOW;
            a[i] = 1 + r * (1 + r * (0.5f + r * (1 / 6f + r * (1 / 24f + r * (1 / 120f + r * (1 / 720f))))));
            scratch[i] = t;
        }
        for (int i = from; i < to; i++) {
            a[i] = Float.intBitsToFloat(
                    Float.floatToRawIntBits(a[i]) + ((Float.floatToRawIntBits(scratch[i]) - ROUNDER_BITS) << 23));
        }
    }
}
