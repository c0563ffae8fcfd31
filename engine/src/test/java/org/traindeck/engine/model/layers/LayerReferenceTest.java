package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.ops.transforms.Transforms;

/** Each layer's forward pass against a plain loop over its definition, with random parameters. */
class LayerReferenceTest {

    private static final double TOLERANCE = 1e-10;

    @Test
    void layerNormNormalisesEachTimeStepOverFeatures() {
        ComputationGraph graph = graph(InputType.recurrent(5, 4), new LayerNorm(1e-3));
        INDArray x = random(3, 5, 4);
        INDArray gain = graph.getParam("l0_gain");
        INDArray bias = graph.getParam("l0_bias");
        INDArray expected = Nd4j.create(DataType.DOUBLE, 3, 5, 4);
        for (int b = 0; b < 3; b++) {
            for (int t = 0; t < 4; t++) {
                INDArray column = x.get(NDArrayIndex.point(b), NDArrayIndex.all(), NDArrayIndex.point(t));
                double mean = column.meanNumber().doubleValue();
                double variance =
                        column.sub(mean).muli(column.sub(mean)).meanNumber().doubleValue();
                for (int f = 0; f < 5; f++) {
                    double value = (column.getDouble(f) - mean) / Math.sqrt(variance + 1e-3);
                    expected.putScalar(b, f, t, value * gain.getDouble(0, f) + bias.getDouble(0, f));
                }
            }
        }
        assertClose(layerOutput(graph, x), expected);
    }

    @Test
    void layerNormOnImagesNormalisesEachPositionOverChannels() {
        ComputationGraph graph = graph(InputType.convolutional(2, 3, 4), new LayerNorm());
        INDArray x = random(2, 4, 2, 3);
        INDArray out = layerOutput(graph, x);
        INDArray gain = graph.getParam("l0_gain");
        INDArray bias = graph.getParam("l0_bias");
        for (int h = 0; h < 2; h++) {
            for (int w = 0; w < 3; w++) {
                INDArray in =
                        x.get(NDArrayIndex.point(1), NDArrayIndex.all(), NDArrayIndex.point(h), NDArrayIndex.point(w));
                double mean = in.meanNumber().doubleValue();
                double std =
                        Math.sqrt(in.sub(mean).muli(in.sub(mean)).meanNumber().doubleValue() + 1e-5);
                INDArray expected = in.sub(mean).divi(std).muli(gain.reshape(4)).addi(bias.reshape(4));
                assertClose(
                        out.get(
                                NDArrayIndex.point(1),
                                NDArrayIndex.all(),
                                NDArrayIndex.point(h),
                                NDArrayIndex.point(w)),
                        expected);
            }
        }
    }

    @Test
    void selfAttentionMatchesAPerHeadLoop() {
        for (boolean causal : new boolean[] {false, true}) {
            int nIn = 5;
            int nOut = 6;
            int heads = 3;
            int length = 4;
            ComputationGraph graph = graph(InputType.recurrent(nIn, length), new SelfAttention(nOut, heads, causal));
            INDArray x = random(2, nIn, length);
            assertClose(layerOutput(graph, x), attentionByLoop(graph, x, nOut, heads, causal));
        }
    }

    private static INDArray attentionByLoop(ComputationGraph graph, INDArray x, int nOut, int heads, boolean causal) {
        INDArray wqkv = graph.getParam("l0_Wqkv");
        INDArray bqkv = graph.getParam("l0_bqkv");
        INDArray wo = graph.getParam("l0_Wo");
        INDArray bo = graph.getParam("l0_bo");
        int headSize = nOut / heads;
        long batch = x.size(0);
        long length = x.size(2);
        INDArray out = Nd4j.create(DataType.DOUBLE, batch, nOut, length);
        for (int b = 0; b < batch; b++) {
            INDArray rows = x.get(NDArrayIndex.point(b), NDArrayIndex.all(), NDArrayIndex.all())
                    .transpose(); // [T, nIn]
            INDArray qkv = rows.mmul(wqkv).addiRowVector(bqkv); // [T, 3 nOut]
            INDArray joined = Nd4j.create(DataType.DOUBLE, length, nOut);
            for (int h = 0; h < heads; h++) {
                INDArray q = qkv.get(NDArrayIndex.all(), NDArrayIndex.interval(h * headSize, (h + 1) * headSize));
                INDArray k = qkv.get(
                        NDArrayIndex.all(), NDArrayIndex.interval(nOut + h * headSize, nOut + (h + 1) * headSize));
                INDArray v = qkv.get(
                        NDArrayIndex.all(),
                        NDArrayIndex.interval(2 * nOut + h * headSize, 2 * nOut + (h + 1) * headSize));
                INDArray scores = q.mmul(k.transpose()).divi(Math.sqrt(headSize));
                for (int i = 0; i < length; i++) {
                    double max = Double.NEGATIVE_INFINITY;
                    for (int j = 0; j < length; j++) {
                        if (!causal || j <= i) {
                            max = Math.max(max, scores.getDouble(i, j));
                        }
                    }
                    double sum = 0;
                    for (int j = 0; j < length; j++) {
                        double e = (!causal || j <= i) ? Math.exp(scores.getDouble(i, j) - max) : 0;
                        scores.putScalar(i, j, e);
                        sum += e;
                    }
                    scores.getRow(i).divi(sum);
                }
                joined.put(
                        new INDArrayIndex[] {NDArrayIndex.all(), NDArrayIndex.interval(h * headSize, (h + 1) * headSize)
                        },
                        scores.mmul(v));
            }
            INDArray projected = joined.mmul(wo).addiRowVector(bo); // [T, nOut]
            out.get(NDArrayIndex.point(b), NDArrayIndex.all(), NDArrayIndex.all())
                    .assign(projected.transpose());
        }
        return out;
    }

    @Test
    void patchEmbeddingProjectsRowMajorPatchesAfterTheClassToken() {
        int channels = 2;
        int height = 4;
        int width = 6;
        int patch = 2;
        int features = 3;
        ComputationGraph graph =
                graph(InputType.convolutional(height, width, channels), new PatchEmbedding(patch, features, true));
        INDArray x = random(2, channels, height, width);
        INDArray out = layerOutput(graph, x);
        INDArray w = graph.getParam("l0_W");
        INDArray bias = graph.getParam("l0_b").reshape(features);
        INDArray pos = graph.getParam("l0_pos");
        INDArray cls = graph.getParam("l0_cls").reshape(features);
        assertThat(out.shape()).containsExactly(2, features, 1 + (height / patch) * (width / patch));
        for (int b = 0; b < 2; b++) {
            assertClose(
                    out.get(NDArrayIndex.point(b), NDArrayIndex.all(), NDArrayIndex.point(0)),
                    cls.add(pos.getColumn(0)));
            for (int r = 0; r < height / patch; r++) {
                for (int c = 0; c < width / patch; c++) {
                    INDArray vector = Nd4j.create(DataType.DOUBLE, 1, channels * patch * patch);
                    int k = 0;
                    for (int ch = 0; ch < channels; ch++) {
                        for (int i = 0; i < patch; i++) {
                            for (int j = 0; j < patch; j++) {
                                vector.putScalar(0, k++, x.getDouble(b, ch, r * patch + i, c * patch + j));
                            }
                        }
                    }
                    int token = 1 + r * (width / patch) + c;
                    INDArray expected =
                            vector.mmul(w).reshape(features).addi(bias).addi(pos.getColumn(token));
                    assertClose(
                            out.get(NDArrayIndex.point(b), NDArrayIndex.all(), NDArrayIndex.point(token)), expected);
                }
            }
        }
    }

    @Test
    void positionEmbeddingAddsTheFirstTPositions() {
        ComputationGraph graph = graph(InputType.recurrent(3), new PositionEmbedding(6));
        INDArray x = random(2, 3, 4);
        INDArray pos = graph.getParam("l0_pos");
        INDArray expected =
                x.add(pos.get(NDArrayIndex.all(), NDArrayIndex.interval(0, 4)).reshape(1, 3, 4));
        assertClose(layerOutput(graph, x), expected);
    }

    @Test
    void firstTimeStepKeepsStepZero() {
        ComputationGraph graph = graph(InputType.recurrent(3, 4), new FirstTimeStep());
        INDArray x = random(2, 3, 4);
        assertClose(layerOutput(graph, x), x.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.point(0)));
    }

    private static ComputationGraph graph(InputType input, Layer layer) {
        ComputationGraph graph = TinyGraphs.withOutput(DataType.DOUBLE, new NoOp(), input, layer);
        // parameters away from their initial values, so that gain 1 / bias 0 cannot hide a mistake
        for (String name : graph.paramTable().keySet()) {
            if (name.startsWith("l0_")) {
                graph.getParam(name)
                        .assign(Nd4j.rand(DataType.DOUBLE, graph.getParam(name).shape())
                                .subi(0.5));
            }
        }
        return graph;
    }

    private static INDArray layerOutput(ComputationGraph graph, INDArray x) {
        return graph.feedForward(x, false).get("l0");
    }

    private static INDArray random(long... shape) {
        return Nd4j.rand(DataType.DOUBLE, shape).subi(0.5).muli(4);
    }

    private static void assertClose(INDArray actual, INDArray expected) {
        assertThat(actual.shape()).containsExactly(expected.shape());
        double maxDiff = Transforms.abs(actual.sub(expected)).maxNumber().doubleValue();
        assertThat(maxDiff).isLessThan(TOLERANCE);
    }
}
