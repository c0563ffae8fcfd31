package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.UnaryOperator;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.nd4j.linalg.ops.transforms.Transforms;

/** Changing the tokens after position t leaves every output at or before t alone, in causal mode only. */
class CausalityTest {

    private static final int LENGTH = 7;
    private static final int VOCABULARY = 11;

    @Test
    void causalAttentionIgnoresTheFuture() {
        ComputationGraph graph = attentionOnly(true);
        INDArray x = Nd4j.rand(DataType.DOUBLE, 2, 6, LENGTH);
        for (int t = 0; t < LENGTH - 1; t++) {
            INDArray changed = changeAfter(
                    x, t, future -> Nd4j.rand(DataType.DOUBLE, future.shape()).muli(5));
            assertThat(maxDifferenceUpTo(graph, x, changed, t))
                    .as("outputs up to t=%d", t)
                    .isLessThan(1e-12);
        }
    }

    @Test
    void nonCausalAttentionSeesTheFuture() {
        ComputationGraph graph = attentionOnly(false);
        INDArray x = Nd4j.rand(DataType.DOUBLE, 2, 6, LENGTH);
        INDArray changed = changeAfter(
                x, 0, future -> Nd4j.rand(DataType.DOUBLE, future.shape()).muli(5));
        assertThat(maxDifferenceUpTo(graph, x, changed, 0)).isGreaterThan(1e-6);
    }

    @Test
    void gptShapedStackIsCausal() {
        for (boolean causal : new boolean[] {true, false}) {
            ComputationGraph graph = gptStack(causal);
            INDArray tokens =
                    Nd4j.createFromArray(new double[][][] {{{1, 4, 2, 8, 5, 7, 3}}, {{9, 0, 3, 3, 6, 1, 10}}});
            for (int t = 0; t < LENGTH - 1; t++) {
                INDArray changed = changeAfter(tokens, t, future -> future.rsub(VOCABULARY - 1)); // other tokens
                double difference = maxDifferenceUpTo(graph, tokens, changed, t);
                if (causal) {
                    assertThat(difference).as("outputs up to t=%d", t).isLessThan(1e-12);
                } else if (t == 0) {
                    assertThat(difference).isGreaterThan(1e-6);
                }
            }
        }
    }

    private static ComputationGraph attentionOnly(boolean causal) {
        return TinyGraphs.chain(
                DataType.DOUBLE, new NoOp(), InputType.recurrent(6, LENGTH), true, 3, new SelfAttention(8, 2, causal));
    }

    /** Embedding, position embedding, pre-norm attention with its residual, norm, per-step softmax. */
    static ComputationGraph gptStack(boolean causal) {
        ComputationGraphConfiguration.GraphBuilder b =
                TinyGraphs.base(DataType.DOUBLE, new NoOp(), InputType.recurrent(VOCABULARY, LENGTH));
        b.addLayer(
                        "embed",
                        new EmbeddingSequenceLayer.Builder()
                                .nIn(VOCABULARY)
                                .nOut(8)
                                .inputLength(LENGTH)
                                .build(),
                        "in")
                .addLayer("pos", new PositionEmbedding(LENGTH), "embed")
                .addLayer("norm", new LayerNorm(), "pos")
                .addLayer("attn", new SelfAttention(8, 2, causal), "norm")
                .addVertex("residual", new ElementWiseVertex(ElementWiseVertex.Op.Add), "pos", "attn")
                .addLayer(
                        "out",
                        new RnnOutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                                .activation(Activation.SOFTMAX)
                                .nOut(VOCABULARY)
                                .build(),
                        "residual")
                .setOutputs("out");
        ComputationGraph graph = new ComputationGraph(b.build());
        graph.init();
        return graph;
    }

    private static INDArray changeAfter(INDArray x, int t, UnaryOperator<INDArray> change) {
        INDArray changed = x.dup();
        INDArray future = changed.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.interval(t + 1, x.size(2)));
        future.assign(change.apply(future.dup()));
        return changed;
    }

    private static double maxDifferenceUpTo(ComputationGraph graph, INDArray x, INDArray changed, int t) {
        INDArray before =
                graph.outputSingle(x).get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.interval(0, t + 1));
        INDArray after = graph.outputSingle(changed)
                .get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.interval(0, t + 1));
        return Transforms.abs(before.sub(after)).maxNumber().doubleValue();
    }
}
