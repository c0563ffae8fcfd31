package org.traindeck.engine.model.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class TransformerBlockMathTest {

    @Test
    void floatExpIsWithinAFewUlpsOfMathExp() {
        for (float x = -87f; x <= 88f; x += 0.001f) {
            double expected = Math.exp(x);
            assertThat(Math.abs(TransformerBlockMath.exp(x) - expected) / expected)
                    .as("exp(%s)", x)
                    .isLessThan(5e-7);
        }
        assertThat(TransformerBlockMath.exp(-1000f)).isZero();
        assertThat(TransformerBlockMath.exp(Float.NEGATIVE_INFINITY)).isZero();
    }

    @Test
    void geluIsDl4jsGelu() {
        INDArray x = Nd4j.linspace(-6, 6, 241, DataType.FLOAT);
        INDArray expected = Activation.GELU.getActivationFunction().getActivation(x.dup(), true);
        for (int i = 0; i < x.length(); i++) {
            float v = x.getFloat(i);
            float gelu = v / (1 + TransformerBlockMath.exp(-TransformerBlockMath.GELU_SCALE * v));
            assertThat((double) gelu).as("gelu(%s)", v).isCloseTo(expected.getDouble(i), Offset.offset(2e-6));
        }
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
        TransformerBlockMath.expInPlace(e, new float[e.length], 0, e.length);
        for (int i = 0; i < n; i++) {
            double expected = Math.exp(x[i]);
            assertThat(Math.abs(e[i] - expected) / expected).as("exp(%s)", x[i]).isLessThan(5e-7);
        }
        assertThat(e[n]).isPositive().isLessThan(3e-38f);
        assertThat(e[n + 1]).isEqualTo(e[n]);
        assertThat(e[n + 2]).isEqualTo(1f);
    }

    @Test
    void causalSoftmaxMatchesDoublePrecisionAndZeroesTheFuture() {
        int t = 7;
        float[] p = new float[t * t];
        for (int i = 0; i < p.length; i++) {
            p[i] = (float) Math.sin(i * 1.7) * 30;
        }
        float[] scores = p.clone();
        TransformerBlockMath.softmax(p, 0, t, true, new float[p.length]);
        for (int i = 0; i < t; i++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j <= i; j++) {
                max = Math.max(max, scores[i * t + j]);
            }
            double sum = 0;
            for (int j = 0; j <= i; j++) {
                sum += Math.exp(scores[i * t + j] - max);
            }
            for (int j = 0; j < t; j++) {
                double expected = j <= i ? Math.exp(scores[i * t + j] - max) / sum : 0;
                assertThat((double) p[i * t + j]).as("p[%s][%s]", i, j).isCloseTo(expected, Offset.offset(1e-6));
            }
        }
    }
}
