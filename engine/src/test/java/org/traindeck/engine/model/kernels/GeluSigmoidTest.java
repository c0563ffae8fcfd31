package org.traindeck.engine.model.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class GeluSigmoidTest {

    /** Every 1e-4 over [-120, 120]: the sigmoid's whole float range and well past it on both sides. */
    private static float[] grid() {
        float[] x = new float[2_400_001];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (-120 + i * 1e-4);
        }
        return x;
    }

    private static double sigmoid(double x) {
        return 1 / (1 + Math.exp(-GeluSigmoid.SCALE * x));
    }

    @Test
    void sigmoidIsWithin2p5e7OfDoublePrecisionAndExactlyZeroOneOrHalfAtTheEnds() {
        float[] x = grid();
        float[] s = new float[x.length];
        GeluSigmoid.sigmoids(x, s, new float[x.length], x.length);
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            worst = Math.max(worst, Math.abs(s[i] - sigmoid(x[i])));
        }
        assertThat(worst).as("largest absolute error of the sigmoid").isLessThan(2.5e-7);
        assertThat(GeluSigmoid.sigmoid(0f)).isEqualTo(0.5f);
        assertThat(GeluSigmoid.sigmoid(1e-30f)).isEqualTo(0.5f);
        assertThat(GeluSigmoid.sigmoid(Float.MIN_VALUE)).isEqualTo(0.5f);
        assertThat(GeluSigmoid.sigmoid(9.3f)).isEqualTo(1f);
        assertThat(GeluSigmoid.sigmoid(-9.3f)).isZero();
        assertThat(GeluSigmoid.sigmoid(Float.MAX_VALUE)).isEqualTo(1f);
        assertThat(GeluSigmoid.sigmoid(-Float.MAX_VALUE)).isZero();
        assertThat(GeluSigmoid.sigmoid(Float.POSITIVE_INFINITY)).isEqualTo(1f);
        assertThat(GeluSigmoid.sigmoid(Float.NEGATIVE_INFINITY)).isZero();
        assertThat(GeluSigmoid.sigmoid(Float.NaN)).isNaN();
    }

    @Test
    void geluIsWithin2p5e7TimesXOfDoublePrecisionAndItsSlopeWithin2p5e6() {
        float[] x = grid();
        float[] bias = new float[x.length];
        float[] u = x.clone();
        float[] slope = new float[x.length];
        float[] z = new float[x.length];
        GeluSigmoid.biasGelu(u, bias, slope, z, x.length);
        double worstGelu = 0;
        double worstSlope = 0;
        for (int i = 0; i < x.length; i++) {
            double v = x[i];
            double s = sigmoid(v);
            if (v != 0) {
                worstGelu = Math.max(worstGelu, Math.abs(z[i] - v * s) / Math.abs(v));
            }
            worstSlope = Math.max(worstSlope, Math.abs(slope[i] - s * (1 + GeluSigmoid.SCALE * v * (1 - s))));
        }
        assertThat(worstGelu).as("largest error of the GELU over |x|").isLessThan(2.5e-7);
        assertThat(worstSlope).as("largest absolute error of the slope").isLessThan(2.5e-6);
    }

    @Test
    void hugeTinyAndNonFiniteInputsGiveTheLimitsOrNaNNeverANaNSlopeForAFiniteInput() {
        float[] x = {3e38f, -3e38f, 1e-40f, -1e-40f, 0f, Float.POSITIVE_INFINITY, Float.NaN, Float.NEGATIVE_INFINITY};
        float[] u = x.clone();
        float[] slope = new float[x.length];
        float[] z = new float[x.length];
        GeluSigmoid.biasGelu(u, new float[x.length], slope, z, x.length);
        assertThat(z[0]).isEqualTo(3e38f);
        assertThat(slope[0]).isEqualTo(1f);
        assertThat(Math.abs(z[1])).isZero();
        assertThat(Math.abs(slope[1])).isZero();
        assertThat(z[2]).isEqualTo(1e-40f * 0.5f);
        assertThat(slope[2]).isEqualTo(0.5f);
        assertThat(z[3]).isEqualTo(-1e-40f * 0.5f);
        assertThat(z[4]).isZero();
        assertThat(slope[4]).isEqualTo(0.5f);
        assertThat(z[5]).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(z[6]).isNaN();
        assertThat(slope[6]).isNaN();
        assertThat(z[7]).isNaN();
    }

    @Test
    void biasGeluAddsTheBiasInPlaceAndIsDl4jsGeluWithItsGradient() {
        int n = 241;
        INDArray x = Nd4j.linspace(-6, 6, n, DataType.FLOAT);
        INDArray expected = Activation.GELU.getActivationFunction().getActivation(x.dup(), true);
        INDArray ones = Nd4j.ones(DataType.FLOAT, n);
        INDArray gradient =
                Activation.GELU.getActivationFunction().backprop(x.dup(), ones).getFirst();
        float[] bias = new float[n];
        Arrays.fill(bias, 0.25f);
        float[] u = x.sub(0.25f).toFloatVector();
        float[] slope = new float[n];
        float[] z = new float[n];
        GeluSigmoid.biasGelu(u, bias, slope, z, n);
        for (int i = 0; i < n; i++) {
            assertThat(u[i]).as("u + bias").isCloseTo(x.getFloat(i), Offset.offset(1e-6f));
            assertThat((double) z[i]).as("gelu(%s)", u[i]).isCloseTo(expected.getDouble(i), Offset.offset(2e-6));
            assertThat((double) slope[i]).as("gelu'(%s)", u[i]).isCloseTo(gradient.getDouble(i), Offset.offset(4e-6));
        }
    }
}
