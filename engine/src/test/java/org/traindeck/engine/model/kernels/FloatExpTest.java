package org.traindeck.engine.model.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FloatExpTest {

    @Test
    void floatExpIsWithinAFewUlpsOfMathExp() {
        for (float x = -87f; x <= 88f; x += 0.001f) {
            double expected = Math.exp(x);
            assertThat(Math.abs(FloatExp.exp(x) - expected) / expected)
                    .as("exp(%s)", x)
                    .isLessThan(5e-7);
        }
        assertThat(FloatExp.exp(-1000f)).isZero();
        assertThat(FloatExp.exp(Float.NEGATIVE_INFINITY)).isZero();
    }

    @Test
    void vectorisedExpIsWithinAFewUlpsOfMathExpAndFloorsAt2e38() {
        int n = 174_500;
        float[] x = new float[n + 3];
        for (int i = 0; i < n; i++) {
            x[i] = -86.5f + i * 0.001f;
        }
        x[n] = -1000f;
        x[n + 1] = Float.NEGATIVE_INFINITY;
        x[n + 2] = 0f;
        float[] e = x.clone();
        FloatExp.expInPlace(e, new float[e.length], 0, e.length);
        for (int i = 0; i < n; i++) {
            double expected = Math.exp(x[i]);
            assertThat(Math.abs(e[i] - expected) / expected).as("exp(%s)", x[i]).isLessThan(5e-7);
        }
        assertThat(e[n]).isPositive().isLessThan(3e-38f);
        assertThat(e[n + 1]).isEqualTo(e[n]);
        assertThat(e[n + 2]).isEqualTo(1f);
    }
}
