package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The weight gradient without the input gradient in blocks of output rows gives what one product per example gives
 * (ConvKernelTest checks that one against DL4J's layer), at every block size down to a single row.
 */
class ConvWeightGradientTest {

    @Test
    void blocksOfOutputRowsSumToTheWholeImagesGradient() {
        Nd4j.getRandom().setSeed(4);
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 2, 9, 7);
        INDArray dz = Nd4j.randn(DataType.FLOAT, 3, 5, 9, 7);
        INDArray wholeW = Nd4j.create(DataType.FLOAT, 5, 2, 3, 3);
        INDArray wholeB = Nd4j.create(DataType.FLOAT, 5);
        new ConvWeightGradient().compute(x, dz, wholeW, wholeB, new int[] {3, 3}, new int[] {1, 1});
        assertThat(wholeW.amaxNumber().doubleValue()).isPositive();
        for (int block : new int[] {1, 7, 20, 62}) {
            INDArray dW = Nd4j.create(DataType.FLOAT, 5, 2, 3, 3);
            INDArray db = Nd4j.create(DataType.FLOAT, 5);
            new ConvWeightGradient(block).compute(x, dz, dW, db, new int[] {3, 3}, new int[] {1, 1});
            assertThat(dW.equalsWithEps(wholeW, 1e-4))
                    .as("weights in blocks of %d pixels", block)
                    .isTrue();
            assertThat(db.equalsWithEps(wholeB, 1e-4))
                    .as("bias in blocks of %d pixels", block)
                    .isTrue();
        }
    }
}
