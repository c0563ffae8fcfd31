package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.ops.transforms.Transforms;

/** One built network serves every sequence length, in every float type, without writing to stdout. */
class RuntimeBehaviourTest {

    @Test
    void oneNetworkServesEverySequenceLength() {
        ComputationGraph graph = CausalityTest.gptStack(true);
        INDArray tokens = Nd4j.createFromArray(new double[][][] {{{1, 4, 2, 8, 5, 7, 3}}});
        INDArray full = graph.outputSingle(tokens);
        for (int length : new int[] {1, 3, 7, 2}) {
            INDArray prefix = tokens.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.interval(0, length));
            INDArray out = graph.outputSingle(prefix);
            assertThat(out.shape()).containsExactly(1, 11, length);
            // causal: a prefix gives the same outputs as the full sequence, position by position
            INDArray fullPrefix = full.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.interval(0, length));
            assertThat(Transforms.abs(out.sub(fullPrefix)).maxNumber().doubleValue())
                    .isLessThan(1e-12);
        }
    }

    @Test
    void trainsOnChangingLengthsAndBatchSizes() {
        ComputationGraph graph = TinyGraphs.chain(
                DataType.FLOAT,
                new Adam(1e-3),
                InputType.recurrent(6),
                true,
                3,
                new PositionEmbedding(9),
                new LayerNorm(),
                new SelfAttention(8, 2, true));
        for (long[] shape : new long[][] {{4, 6, 9}, {3, 6, 1}, {2, 6, 5}}) {
            INDArray x = Nd4j.rand(DataType.FLOAT, shape);
            INDArray labels = Nd4j.zeros(DataType.FLOAT, shape[0], 3, shape[2]);
            labels.get(NDArrayIndex.all(), NDArrayIndex.point(1), NDArrayIndex.all())
                    .assign(1);
            graph.fit(new INDArray[] {x}, new INDArray[] {labels});
            assertThat(graph.score()).isFinite();
        }
    }

    @Test
    void backpropWritesNothingToStdout() {
        ComputationGraph graph = TinyGraphs.chain(
                DataType.FLOAT,
                new NoOp(),
                InputType.recurrent(4, 3),
                true,
                2,
                new LayerNorm(),
                new SelfAttention(4, 2, true));
        INDArray x = Nd4j.rand(DataType.FLOAT, 2, 4, 3);
        INDArray labels = Nd4j.zeros(DataType.FLOAT, 2, 2, 3);
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            graph.fit(new INDArray[] {x}, new INDArray[] {labels});
            System.out.println("a line of our own");
        } finally {
            System.setOut(original);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).isEqualTo("a line of our own" + System.lineSeparator());
    }

    @Test
    void everyFloatTypeRunsForwardAndBackward() {
        for (DataType type : new DataType[] {DataType.DOUBLE, DataType.FLOAT, DataType.HALF}) {
            // Adam's default epsilon 1e-8 is 0 in half precision: updates divide by zero (README, DL4J facts)
            Adam adam = new Adam(1e-3, 0.9, 0.999, 1e-4);
            ComputationGraph graph = new ComputationGraph(TinyVit.configuration(type, adam, 8, 1, 4, 8, 2, 1, 2));
            graph.init();
            INDArray x = Nd4j.rand(type, 4, 1, 8, 8);
            INDArray y = Nd4j.eye(2).repeat(0, 2).castTo(type);
            graph.fit(new INDArray[] {x}, new INDArray[] {y});
            assertThat(graph.params().dataType()).isEqualTo(type);
            assertThat(graph.outputSingle(x).dataType()).isEqualTo(type);
            assertThat(graph.score()).as("%s", type).isFinite();
            assertThat(graph.params().isNaN().any()
                            || graph.params().isInfinite().any())
                    .as("%s", type)
                    .isFalse();
        }
    }
}
