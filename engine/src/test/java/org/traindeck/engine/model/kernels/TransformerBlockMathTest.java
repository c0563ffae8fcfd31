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
            assertThat(Math.abs(TransformerBlockMath.exp(x) - expected) / expected).as("exp(%s)", x).isLessThan(5e-7);
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
}
