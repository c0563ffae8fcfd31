package org.traindeck.engine.model.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * {@link Sgemm#isDenseRowMajor}: which arrays the kernels hand to BLAS and bulk copies as they are. One-channel volumes
 * and images (a dimension of size 1, so two equal strides) are dense and read without a copy; strided, permuted,
 * column-major and non-float arrays are not.
 */
class SgemmDenseTest {

    @Test
    void arraysWithDimensionsOfSizeOneAreDenseAndNotCopied() {
        INDArray volume = Nd4j.rand(DataType.FLOAT, 8, 1, 4, 4, 4);
        INDArray image = Nd4j.rand(DataType.FLOAT, 3, 1, 5, 5);
        INDArray column = Nd4j.rand(DataType.FLOAT, 6, 1);
        INDArray row = Nd4j.rand(DataType.FLOAT, 1, 6);
        for (INDArray a : new INDArray[] {volume, image, column, row, Nd4j.rand(DataType.FLOAT, 2, 1, 1, 5)}) {
            assertThat(Sgemm.isDenseRowMajor(a)).as("%s", a.shapeInfoToString()).isTrue();
            assertThat(Sgemm.dense(a)).isSameAs(a);
        }
    }

    @Test
    void aOneChannelVolumeIsReadAndWrittenInRowMajorOrder() {
        INDArray volume = Nd4j.linspace(DataType.FLOAT, 1, 2 * 27, 1).reshape('c', 2, 1, 3, 3, 3);
        float[] values = new float[2 * 27];
        HostFloats.read(volume, values);
        for (int i = 0; i < values.length; i++) {
            assertThat(values[i]).isEqualTo(i + 1f);
            values[i] = -values[i];
        }
        HostFloats.write(values, volume);
        assertThat(volume.getFloat(1, 0, 2, 1, 0)).isEqualTo(-(27 + 2 * 9 + 3 + 1f));
    }

    @Test
    void stridedPermutedColumnMajorAndDoubleArraysAreNot() {
        INDArray matrix = Nd4j.rand(DataType.FLOAT, 4, 3);
        assertThat(Sgemm.isDenseRowMajor(matrix.getColumn(1))).isFalse();
        assertThat(Sgemm.isDenseRowMajor(matrix.getRow(2))).isTrue();
        assertThat(Sgemm.isDenseRowMajor(Nd4j.rand(DataType.FLOAT, 2, 3, 4).permute(0, 2, 1)))
                .isFalse();
        assertThat(Sgemm.isDenseRowMajor(Nd4j.rand(DataType.FLOAT, 2, 1, 3, 4).permute(0, 3, 1, 2)))
                .isFalse();
        assertThat(Sgemm.isDenseRowMajor(Nd4j.create(DataType.FLOAT, new long[] {3, 4}, 'f')))
                .isFalse();
        assertThat(Sgemm.isDenseRowMajor(Nd4j.rand(DataType.DOUBLE, 2, 1, 3))).isFalse();
        float[] row = new float[3];
        HostFloats.read(matrix.getRow(2), row);
        assertThat(row).containsExactly(matrix.getFloat(2, 0), matrix.getFloat(2, 1), matrix.getFloat(2, 2));
    }
}
