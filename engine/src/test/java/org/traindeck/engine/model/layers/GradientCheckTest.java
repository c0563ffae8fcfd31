package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.gradientcheck.GradientCheckUtil;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;

/** Finite differences against backprop, in double precision, for every layer on a tiny graph. */
class GradientCheckTest {

    private static final InputType VOLUME = InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 2, 4, 2, 2);

    private static DataType previousDefault;
    private static DataType previousFloatDefault;

    @BeforeAll
    static void doublePrecision() {
        previousDefault = Nd4j.dataType();
        previousFloatDefault = Nd4j.defaultFloatingPointType();
        Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
    }

    @AfterAll
    static void restorePrecision() {
        Nd4j.setDefaultDataTypes(previousDefault, previousFloatDefault);
    }

    /** The gradient a SameDiff layer hands down (DL4J M2.1 doubles it; see SameDiffLayerRuntime) reaches a dense layer. */
    @Test
    void inputGradientOfASameDiffLayer() {
        check(
                InputType.feedForward(5),
                new long[] {3, 5},
                false,
                new DenseLayer.Builder().nOut(4).activation(Activation.TANH).build(),
                new LayerNorm());
    }

    @Test
    void layerNormOnFeatures() {
        check(InputType.feedForward(5), new long[] {3, 5}, false, new LayerNorm());
    }

    @Test
    void layerNormOnSequences() {
        check(InputType.recurrent(5, 4), new long[] {3, 5, 4}, true, new LayerNorm(1e-3));
    }

    @Test
    void layerNormOnImages() {
        check(InputType.convolutional(3, 2, 4), new long[] {2, 4, 3, 2}, false, new LayerNorm());
    }

    @Test
    void selfAttention() {
        check(InputType.recurrent(6, 5), new long[] {2, 6, 5}, true, new SelfAttention(8, 2, false));
    }

    @Test
    void causalSelfAttention() {
        check(InputType.recurrent(6, 5), new long[] {2, 6, 5}, true, new SelfAttention(8, 2, true));
    }

    @Test
    void causalSelfAttentionOnOneStep() {
        check(InputType.recurrent(6, 1), new long[] {2, 6, 1}, true, new SelfAttention(4, 4, true));
    }

    @Test
    void patchEmbedding() {
        check(InputType.convolutional(4, 6, 2), new long[] {2, 2, 4, 6}, true, new PatchEmbedding(2, 5, false));
    }

    @Test
    void patchEmbeddingWithClassToken() {
        check(InputType.convolutional(4, 6, 2), new long[] {2, 2, 4, 6}, true, new PatchEmbedding(2, 5, true));
    }

    @Test
    void patchEmbedding3D() {
        check(VOLUME, new long[] {2, 2, 2, 4, 2}, true, new PatchEmbedding3D(2, 3));
    }

    /** Volume → tokens → volume → tokens: unpatch3d's gradient, in and out, through both layers. */
    @Test
    void unpatch3D() {
        check(
                VOLUME,
                new long[] {2, 2, 2, 4, 2},
                true,
                new PatchEmbedding3D(2, 3),
                new Unpatch3D(2, 2, new int[] {1, 2, 1}),
                new PatchEmbedding3D(1, 2));
    }

    @Test
    void positionEmbeddingOnShorterSequences() {
        check(InputType.recurrent(4, 3), new long[] {2, 4, 3}, true, new PositionEmbedding(5));
    }

    @Test
    void firstTimeStep() {
        check(InputType.recurrent(4, 3), new long[] {2, 4, 3}, false, new PositionEmbedding(3), new FirstTimeStep());
    }

    @Test
    void timestepEmbedding() {
        check(InputType.feedForward(1), new long[] {3, 1}, false, new TimestepEmbedding(8, 5));
    }

    private static void check(InputType inputType, long[] inputShape, boolean sequenceOutput, Layer... layers) {
        int classes = 3;
        ComputationGraph graph =
                TinyGraphs.chain(DataType.DOUBLE, new NoOp(), inputType, sequenceOutput, classes, layers);
        INDArray input = Nd4j.rand(DataType.DOUBLE, inputShape).subi(0.5).muli(2);
        long[] labelShape = sequenceOutput
                ? new long[] {inputShape[0], classes, outputLength(graph, input)}
                : new long[] {inputShape[0], classes};
        INDArray labels = Nd4j.zeros(DataType.DOUBLE, labelShape);
        INDArray classIndex = Nd4j.rand(DataType.DOUBLE, labelShape).argMax(1);
        // one-hot along the class axis
        for (long i = 0; i < classIndex.length(); i++) {
            long example = sequenceOutput ? i / classIndex.size(1) : i;
            long cls = classIndex.getLong(i);
            if (sequenceOutput) {
                labels.putScalar(new long[] {example, cls, i % classIndex.size(1)}, 1.0);
            } else {
                labels.putScalar(new long[] {example, cls}, 1.0);
            }
        }
        boolean ok = GradientCheckUtil.checkGradients(new GradientCheckUtil.GraphConfig()
                .net(graph)
                .inputs(new INDArray[] {input})
                .labels(new INDArray[] {labels})
                .epsilon(1e-6)
                .maxRelError(1e-5)
                .minAbsoluteError(1e-9)
                .print(GradientCheckUtil.PrintMode.FAILURES_ONLY)
                .exitOnFirstError(false));
        assertThat(ok).as("gradient check").isTrue();
    }

    private static long outputLength(ComputationGraph graph, INDArray input) {
        return graph.outputSingle(input).size(2);
    }
}
