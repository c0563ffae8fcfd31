package org.traindeck.engine.train.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The activation moments read from an array's memory are ND4J's mean and standard deviation of it, with its exact
 * zeros counted; two workers' parts of a batch merge into the moments of the whole batch, as one device takes them.
 */
class ActivationMomentsTest {

    /** Relu-like activations [examples, channels, h, w] far from a zero mean, with exact zeros. */
    private static INDArray activations() {
        Nd4j.getRandom().setSeed(7);
        INDArray a = Transforms.relu(Nd4j.randn(DataType.FLOAT, 12, 3, 5, 4));
        a.get(NDArrayIndex.point(0)).addi(1000);
        return a;
    }

    @Test
    void oneArraysMomentsAreNd4jsMeanAndDeviationAndItsExactZeros() {
        INDArray a = activations();
        ActivationProbe.Moments m = ActivationProbe.Moments.of(a);

        assertThat(m.count()).isEqualTo(a.length());
        assertThat(m.mean()).isCloseTo(a.meanNumber().doubleValue(), within(1e-5 * Math.abs(m.mean())));
        assertThat(m.std()).isCloseTo(a.stdNumber().doubleValue(), within(1e-5 * m.std()));
        long zeros = 0;
        for (float v : a.data().asFloat()) {
            zeros += v == 0 ? 1 : 0;
        }
        assertThat(m.zeros()).isEqualTo(zeros).isPositive();
    }

    @Test
    void twoWorkersPartsMergeIntoTheWholeBatchsMoments() {
        INDArray a = activations();
        ActivationProbe.Moments whole = ActivationProbe.Moments.of(a);
        // the second part a view at an offset, as a worker's half of one batch
        ActivationProbe.Moments first = ActivationProbe.Moments.of(a.get(NDArrayIndex.interval(0, 5)));
        ActivationProbe.Moments second = ActivationProbe.Moments.of(a.get(NDArrayIndex.interval(5, 12)));

        ActivationProbe.Moments merged = first.plus(second);

        assertThat(merged.count()).isEqualTo(whole.count());
        assertThat(merged.zeros()).isEqualTo(whole.zeros());
        assertThat(merged.mean()).isCloseTo(whole.mean(), within(1e-9 * Math.abs(whole.mean())));
        assertThat(merged.std()).isCloseTo(whole.std(), within(1e-9 * whole.std()));
        assertThat(second.plus(first).std()).isCloseTo(whole.std(), within(1e-9 * whole.std()));
        ActivationProbe.Moments none = new ActivationProbe.Moments(0, 0, 0, 0);
        assertThat(none.plus(first)).isEqualTo(first);
        assertThat(first.plus(none)).isEqualTo(first);
    }
}
