package org.traindeck.engine.model.kernels.embedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.traindeck.engine.model.kernels.LayerGradients.checkAgainstFiniteDifferences;
import static org.traindeck.engine.model.kernels.LayerGradients.forwardBackward;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.assertRelativelyClose;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.traindeck.engine.model.layers.PatchEmbedding;
import org.traindeck.engine.model.layers.PositionEmbedding;

/**
 * The position and patch embedding kernels against TrainDeck's SameDiff layers with the same parameters (output, every
 * parameter's gradient, the input's gradient), and central finite differences; the token embedding kernel against
 * DL4J's EmbeddingSequenceLayer (a sum of one-hot lookups: its gradient is exact, compared directly).
 */
class EmbeddingKernelsTest {

    private static void compare(Layer ref, Layer k, INDArray x, int[] outShape) {
        assertThat(k.paramTable().keySet())
                .containsExactlyElementsOf(ref.paramTable().keySet());
        for (String p : ref.paramTable().keySet()) {
            assertThat(k.getParam(p).shape()).as(p).isEqualTo(ref.getParam(p).shape());
            assertThat(k.getParam(p).ordering()).as(p).isEqualTo(ref.getParam(p).ordering());
        }
        ref.params().assign(Nd4j.randn(DataType.FLOAT, ref.params().shape()));
        k.params().assign(ref.params());
        INDArray eps = Nd4j.randn(DataType.FLOAT, outShape);
        INDArray[] refOut = new INDArray[1];
        INDArray[] kOut = new INDArray[1];
        Pair<Gradient, INDArray> r = forwardBackward(ref, x, eps, refOut, true);
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, kOut, true);
        assertRelativelyClose(kOut[0], refOut[0], 1e-5, "output");
        assertRelativelyClose(g.getSecond(), r.getSecond(), 1e-4, "input gradient");
        assertThat(g.getFirst().gradientForVariable().keySet())
                .containsExactlyElementsOf(ref.paramTable().keySet());
        for (String p : ref.paramTable().keySet()) {
            assertRelativelyClose(
                    g.getFirst().getGradientFor(p), r.getFirst().getGradientFor(p), 1e-4, "gradient of " + p);
        }
        assertRelativelyClose(k.getGradientsViewArray(), ref.getGradientsViewArray(), 1e-4, "flat gradient view");
    }

    private static PositionEmbedding positions(boolean kernel, long maxLength, long width) {
        return kernel ? new PositionEmbeddingKernel(maxLength, width, 0) : new PositionEmbedding(maxLength, width);
    }

    private static PatchEmbedding patches(boolean kernel, int size, long width, boolean classToken, InputType image) {
        PatchEmbedding p = kernel
                ? new PatchEmbeddingKernel(size, width, classToken)
                : new PatchEmbedding(size, width, classToken);
        p.setNIn(image, true);
        return p;
    }

    @Test
    void positionsMatchTheSameDiffLayerAtFullAndShorterLength() {
        compare(
                instantiate(positions(false, 7, 5)),
                instantiate(positions(true, 7, 5)),
                Nd4j.randn(DataType.FLOAT, 3, 5, 7),
                new int[] {3, 5, 7});
        compare(
                instantiate(positions(false, 7, 5)),
                instantiate(positions(true, 7, 5)),
                Nd4j.randn(DataType.FLOAT, 2, 5, 4),
                new int[] {2, 5, 4});
    }

    @Test
    void positionsReadAViewInput() {
        compare(
                instantiate(positions(false, 6, 4)),
                instantiate(positions(true, 6, 4)),
                Nd4j.randn(DataType.FLOAT, 3, 6, 4).permute(0, 2, 1),
                new int[] {3, 4, 6});
    }

    @Test
    void patchesWithAClassTokenMatchTheSameDiffLayer() {
        InputType image = InputType.convolutional(6, 8, 3);
        compare(
                instantiate(patches(false, 2, 5, true, image)),
                instantiate(patches(true, 2, 5, true, image)),
                Nd4j.randn(DataType.FLOAT, 4, 3, 6, 8),
                new int[] {4, 5, 13});
    }

    @Test
    void patchesWithoutAClassTokenMatchTheSameDiffLayer() {
        InputType image = InputType.convolutional(4, 4, 1);
        compare(
                instantiate(patches(false, 2, 3, false, image)),
                instantiate(patches(true, 2, 3, false, image)),
                Nd4j.randn(DataType.FLOAT, 2, 1, 4, 4),
                new int[] {2, 3, 4});
    }

    @Test
    void bothDrawTheSameInitialParameters() {
        InputType image = InputType.convolutional(4, 4, 2);
        assertThat(instantiate(patches(true, 2, 3, true, image)).params())
                .isEqualTo(instantiate(patches(false, 2, 3, true, image)).params());
        assertThat(instantiate(positions(true, 5, 3)).params())
                .isEqualTo(instantiate(positions(false, 5, 3)).params());
    }

    @Test
    void positionDropoutDropsTheSumAndItsGradientAlike() {
        Layer k = instantiate(new PositionEmbeddingKernel(6, 4, 0.5));
        k.params().assign(Nd4j.randn(DataType.FLOAT, k.params().shape()));
        INDArray x = Nd4j.randn(DataType.FLOAT, 8, 4, 6);
        INDArray eps = Nd4j.randn(DataType.FLOAT, 8, 4, 6);
        INDArray[] out = new INDArray[1];
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, out, true);
        INDArray sum = x.add(k.getParam(PositionEmbedding.POSITIONS).reshape(1, 4, 6));
        INDArray kept = out[0].div(sum);
        // every element kept at twice its value, or dropped; the gradient goes exactly where the value went
        for (float v : kept.reshape(-1).toFloatVector()) {
            assertThat(Math.min(Math.abs(v), Math.abs(v - 2))).isLessThan(1e-4f);
        }
        Transforms.round(kept, false);
        assertRelativelyClose(g.getSecond(), eps.mul(kept), 1e-5, "input gradient");
        assertRelativelyClose(
                g.getFirst().getGradientFor(PositionEmbedding.POSITIONS),
                eps.mul(kept).sum(0),
                1e-5,
                "gradient of pos");
        double dropped = kept.eq(0).castTo(DataType.DOUBLE).meanNumber().doubleValue();
        assertThat(dropped).isBetween(0.35, 0.65);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        k.setInput(x, ws);
        assertRelativelyClose(k.activate(false, ws), sum, 1e-6, "inference output (no dropout)");
    }

    private static EmbeddingSequenceLayer tokens(int vocabulary, int units, int length) {
        return new EmbeddingSequenceLayer.Builder()
                .nIn(vocabulary)
                .nOut(units)
                .outputDataFormat(RNNFormat.NCW)
                .hasBias(false)
                .inputLength(length)
                .inferInputLength(false)
                .build();
    }

    private static INDArray ids(int mb, int length, int vocabulary) {
        INDArray x = Nd4j.create(DataType.FLOAT, mb, length);
        for (int i = 0; i < mb * length; i++) {
            // repeated ids: their gradients must add up
            x.putScalar(i, (i * 5) % vocabulary);
        }
        return x;
    }

    private static void compareTokens(INDArray x, INDArray mask) {
        Layer ref = instantiate(tokens(7, 4, (int) x.size(x.rank() - 1)));
        Layer k = instantiate(new TokenEmbedding(tokens(7, 4, (int) x.size(x.rank() - 1))));
        assertThat(k).isInstanceOf(TokenEmbeddingLayer.class);
        assertThat(k.paramTable().keySet())
                .containsExactlyElementsOf(ref.paramTable().keySet())
                .containsExactly("W");
        assertThat(k.getParam("W").ordering()).isEqualTo(ref.getParam("W").ordering());
        assertThat(k.params()).isEqualTo(ref.params());
        ref.params().assign(Nd4j.randn(DataType.FLOAT, ref.params().shape()));
        k.params().assign(ref.params());
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        INDArray eps = Nd4j.randn(DataType.FLOAT, x.size(0), 4, x.size(x.rank() - 1));
        INDArray[] out = new INDArray[2];
        Gradient[] grads = new Gradient[2];
        Layer[] layers = {ref, k};
        for (int i = 0; i < 2; i++) {
            layers[i].setInput(x, ws);
            layers[i].setMaskArray(mask);
            out[i] = layers[i].activate(true, ws).dup();
            Pair<Gradient, INDArray> p = layers[i].backpropGradient(eps, ws);
            assertThat(p.getSecond()).isNull();
            grads[i] = p.getFirst();
        }
        assertRelativelyClose(out[1], out[0], 1e-6, "output");
        assertRelativelyClose(grads[1].getGradientFor("W"), grads[0].getGradientFor("W"), 1e-5, "gradient of W");
        assertRelativelyClose(k.getGradientsViewArray(), ref.getGradientsViewArray(), 1e-5, "flat gradient view");
    }

    @Test
    void tokensMatchEmbeddingSequenceLayer() {
        compareTokens(ids(3, 5, 7), null);
        compareTokens(ids(2, 4, 7).reshape(2, 1, 4), null);
    }

    @Test
    void tokensHonourASequenceMaskAsEmbeddingSequenceLayerDoes() {
        compareTokens(ids(3, 5, 7), Nd4j.createFromArray(new float[][] {
            {1, 1, 1, 0, 0}, {1, 1, 1, 1, 1}, {1, 0, 0, 0, 0}
        }));
    }

    @Test
    void anIdOutsideTheVocabularyIsRefused() {
        Layer k = instantiate(new TokenEmbedding(tokens(7, 4, 2)));
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        k.setInput(Nd4j.createFromArray(new float[][] {{1, 7}}), ws);
        assertThatThrownBy(() -> k.activate(true, ws))
                .hasMessageContaining("token id 7.0")
                .hasMessageContaining("0..6");
    }

    @Test
    void positionGradientsMatchFiniteDifferences() {
        Layer k = instantiate(positions(true, 5, 3));
        checkAgainstFiniteDifferences(k, Nd4j.randn(DataType.FLOAT, 2, 3, 4));
    }

    @Test
    void patchGradientsMatchFiniteDifferences() {
        Layer k = instantiate(patches(true, 2, 3, true, InputType.convolutional(4, 2, 2)));
        checkAgainstFiniteDifferences(k, Nd4j.randn(DataType.FLOAT, 2, 2, 4, 2));
    }

    @Test
    void configurationsSurviveJson() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.convolutional(4, 4, 1))
                .addLayer("p", new PatchEmbeddingKernel(2, 6, true), "in")
                .addLayer("q", new PositionEmbeddingKernel(5, 0, 0.25), "p")
                .setOutputs("q")
                .build();
        ComputationGraphConfiguration tokens = new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.recurrent(7, 5))
                .addLayer("t", new TokenEmbedding(tokens(7, 4, 5)), "in")
                .setOutputs("t")
                .build();
        assertThat(ComputationGraphConfiguration.fromJson(tokens.toJson())).isEqualTo(tokens);
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(back.getVertices().get("p").toString()).contains("PatchEmbeddingKernel");
        assertThat(back.getVertices().get("q").toString())
                .contains("PositionEmbeddingKernel")
                .contains("dropout=0.25");
    }
}
