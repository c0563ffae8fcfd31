package org.traindeck.engine.model.kernels.embedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.kernels.LayerGradients.checkAgainstFiniteDifferences;
import static org.traindeck.engine.model.kernels.LayerGradients.forwardBackward;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.assertRelativelyClose;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.InputGradients;
import org.traindeck.engine.model.layers.PatchEmbedding3D;
import org.traindeck.engine.model.layers.Unpatch3D;

/**
 * The patches3d and unpatch3d kernels against TrainDeck's SameDiff layers with the same parameters (output, every
 * parameter's gradient, the input's gradient), against central finite differences, and against the patch layout
 * written out by hand (token order depth-major, a patch's values [C, s, s, s]).
 */
class VolumePatchKernelsTest {

    private static final InputType VOLUME = InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 4, 2, 6, 3);

    private static PatchEmbedding3D patches(boolean kernel, int size, long width, InputType volume) {
        PatchEmbedding3D p = kernel ? new PatchEmbedding3DKernel(size, width) : new PatchEmbedding3D(size, width);
        p.setNIn(volume, true);
        return p;
    }

    private static Unpatch3D unpatch(boolean kernel, int size, long channels, int[] grid, long features) {
        Unpatch3D u = kernel ? new Unpatch3DKernel(size, channels, grid) : new Unpatch3D(size, channels, grid);
        u.setNIn(InputType.recurrent(features, (long) grid[0] * grid[1] * grid[2]), true);
        return u;
    }

    private static void compare(Layer ref, Layer k, INDArray x) {
        assertThat(k).isNotInstanceOf(ref.getClass());
        assertThat(k.paramTable().keySet())
                .containsExactlyElementsOf(ref.paramTable().keySet());
        for (String p : ref.paramTable().keySet()) {
            assertThat(k.getParam(p).shape()).as(p).isEqualTo(ref.getParam(p).shape());
        }
        ref.params().assign(Nd4j.randn(DataType.FLOAT, ref.params().shape()));
        k.params().assign(ref.params());
        INDArray[] refOut = new INDArray[1];
        INDArray[] kOut = new INDArray[1];
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        ref.setInput(x, ws);
        INDArray eps = Nd4j.randn(DataType.FLOAT, ref.activate(true, ws).shape());
        // twice, so that reused buffers are checked too
        for (int pass = 0; pass < 2; pass++) {
            Pair<Gradient, INDArray> r = forwardBackward(ref, x, eps, refOut);
            Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, kOut);
            assertRelativelyClose(kOut[0], refOut[0], 1e-5, "output");
            assertRelativelyClose(g.getSecond(), r.getSecond(), 1e-4, "input gradient");
            for (String p : ref.paramTable().keySet()) {
                assertRelativelyClose(
                        g.getFirst().getGradientFor(p), r.getFirst().getGradientFor(p), 1e-4, "gradient of " + p);
            }
            assertRelativelyClose(k.getGradientsViewArray(), ref.getGradientsViewArray(), 1e-4, "flat gradient view");
        }
    }

    @Test
    void patchesMatchTheSameDiffLayer() {
        compare(
                instantiate(patches(false, 2, 5, VOLUME)),
                instantiate(patches(true, 2, 5, VOLUME)),
                Nd4j.randn(DataType.FLOAT, 3, 3, 4, 2, 6));
    }

    @Test
    void unpatchMatchesTheSameDiffLayer() {
        int[] grid = {2, 1, 3};
        compare(
                instantiate(unpatch(false, 2, 3, grid, 5)),
                instantiate(unpatch(true, 2, 3, grid, 5)),
                Nd4j.randn(DataType.FLOAT, 3, 5, 6));
    }

    /**
     * The kernels hand the arrays' own memory to the products where they can: an input or a gradient in column-major
     * order (not dense row-major) must give exactly what its row-major copy gives.
     */
    @Test
    void columnMajorInputsAndGradientsGiveWhatTheirRowMajorCopiesGive() {
        int[] grid = {2, 1, 3};
        Layer[] layers = {instantiate(patches(true, 2, 5, VOLUME)), instantiate(unpatch(true, 2, 3, grid, 5))};
        INDArray[] inputs = {Nd4j.randn(DataType.FLOAT, 3, 3, 4, 2, 6), Nd4j.randn(DataType.FLOAT, 3, 5, 6)};
        for (int i = 0; i < layers.length; i++) {
            Layer k = layers[i];
            k.params().assign(Nd4j.randn(DataType.FLOAT, k.params().shape()));
            INDArray x = inputs[i];
            INDArray[] out = new INDArray[1];
            k.setInput(x, LayerWorkspaceMgr.noWorkspaces());
            INDArray eps = Nd4j.randn(
                    DataType.FLOAT,
                    k.activate(true, LayerWorkspaceMgr.noWorkspaces()).shape());
            Pair<Gradient, INDArray> dense = forwardBackward(k, x, eps, out);
            INDArray denseOut = out[0];
            INDArray denseGradient = k.getGradientsViewArray().dup();
            Pair<Gradient, INDArray> strided = forwardBackward(k, x.dup('f'), eps.dup('f'), out);
            assertThat(out[0]).as("output %d", i).isEqualTo(denseOut);
            assertThat(strided.getSecond().dup('c')).as("input gradient %d", i).isEqualTo(dense.getSecond());
            assertThat(k.getGradientsViewArray()).as("gradient %d", i).isEqualTo(denseGradient);
        }
    }

    @Test
    void recomputingKernelsMatchTheSameDiffLayers() {
        PatchEmbedding3D recomputing = new PatchEmbedding3DKernel(2, 5, true);
        recomputing.setNIn(VOLUME, true);
        compare(
                instantiate(patches(false, 2, 5, VOLUME)),
                instantiate(recomputing),
                Nd4j.randn(DataType.FLOAT, 3, 3, 4, 2, 6));
        int[] grid = {2, 1, 3};
        Unpatch3D unpatching = new Unpatch3DKernel(2, 3, grid, true);
        unpatching.setNIn(InputType.recurrent(5, 6), true);
        compare(
                instantiate(unpatch(false, 2, 3, grid, 5)),
                instantiate(unpatching),
                Nd4j.randn(DataType.FLOAT, 3, 5, 6));
    }

    /**
     * A patches3d and an unpatch3d that recompute share one set of buffers: with their passes interleaved as in a graph
     * (both forward, then both backward), each backward pass must make its own rows again, and every output and
     * gradient equals, bit for bit, those of the same layers keeping their rows.
     */
    @Test
    void recomputingNodesSharingTheirBuffersGetTheGradientsOfNodesKeepingTheirRows() {
        int[] grid = {2, 1, 3};
        PatchEmbedding3D p = new PatchEmbedding3DKernel(2, 5, true);
        p.setNIn(VOLUME, true);
        Unpatch3D u = new Unpatch3DKernel(2, 7, grid, true);
        u.setNIn(InputType.recurrent(5, 6), true);
        Layer[] recomputing = {instantiate(p), instantiate(u)};
        Layer[] keeping = {instantiate(patches(true, 2, 5, VOLUME)), instantiate(unpatch(true, 2, 7, grid, 5))};
        for (int i = 0; i < 2; i++) {
            keeping[i]
                    .params()
                    .assign(Nd4j.randn(DataType.FLOAT, keeping[i].params().shape()));
            recomputing[i].params().assign(keeping[i].params());
        }
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 3, 4, 2, 6);
        INDArray eps = Nd4j.randn(DataType.FLOAT, 3, 7, 4, 2, 6);
        for (int pass = 0; pass < 2; pass++) {
            INDArray[] want = chain(keeping, x, eps);
            INDArray[] got = chain(recomputing, x, eps);
            for (int k = 0; k < want.length; k++) {
                assertThat(got[k]).as("pass %d, array %d", pass, k).isEqualTo(want[k]);
            }
        }
    }

    /** patches3d then unpatch3d forward, both backward: the output, the input's gradient and both layers' gradients. */
    private static INDArray[] chain(Layer[] layers, INDArray x, INDArray eps) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layers[0].setInput(x, ws);
        INDArray tokens = layers[0].activate(true, ws).dup();
        layers[1].setInput(tokens, ws);
        INDArray out = layers[1].activate(true, ws).dup();
        INDArray dTokens = layers[1].backpropGradient(eps, ws).getSecond().dup();
        INDArray dx = layers[0].backpropGradient(dTokens, ws).getSecond().dup();
        return new INDArray[] {
            out,
            dx,
            layers[0].getGradientsViewArray().dup(),
            layers[1].getGradientsViewArray().dup()
        };
    }

    @Test
    void bothDrawTheSameInitialParameters() {
        assertThat(instantiate(patches(true, 2, 3, VOLUME)).params())
                .isEqualTo(instantiate(patches(false, 2, 3, VOLUME)).params());
        assertThat(instantiate(unpatch(true, 2, 3, new int[] {2, 2, 2}, 4)).params())
                .isEqualTo(instantiate(unpatch(false, 2, 3, new int[] {2, 2, 2}, 4))
                        .params());
    }

    /** One value per voxel written at a known place: token t's row holds its patch in [C, s, s, s] order. */
    @Test
    void tokensRunDepthMajorAndAPatchIsChannelsThenDepthHeightWidth() {
        int s = 2;
        InputType volume = InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 4, 2, 4, 2);
        long rowLength = 2L * s * s * s;
        Layer k = instantiate(patches(true, s, rowLength, volume));
        // W the identity, no bias or positions: token t's features are its patch's values
        k.params().assign(0);
        k.getParam(PatchEmbedding3D.WEIGHTS).assign(Nd4j.eye(rowLength).castTo(DataType.FLOAT));
        INDArray x = Nd4j.arange(2 * 4 * 2 * 4).castTo(DataType.FLOAT).reshape(1, 2, 4, 2, 4);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        k.setInput(x, ws);
        INDArray tokens = k.activate(false, ws);
        assertThat(tokens.shape()).containsExactly(1, rowLength, 4);
        int[][] origins = {{0, 0, 0}, {0, 0, 2}, {2, 0, 0}, {2, 0, 2}};
        for (int t = 0; t < 4; t++) {
            int i = 0;
            for (int c = 0; c < 2; c++) {
                for (int dz = 0; dz < s; dz++) {
                    for (int dy = 0; dy < s; dy++) {
                        for (int dx = 0; dx < s; dx++) {
                            float want = x.getFloat(0, c, origins[t][0] + dz, origins[t][1] + dy, origins[t][2] + dx);
                            assertThat(tokens.getFloat(0, i++, t))
                                    .as("token %d value %d", t, i)
                                    .isEqualTo(want);
                        }
                    }
                }
            }
        }
        // unpatch3d with the same identity puts every value back where it came from
        Layer u = instantiate(unpatch(true, s, 2, new int[] {2, 1, 2}, rowLength));
        u.params().assign(0);
        u.getParam(Unpatch3D.WEIGHTS).assign(Nd4j.eye(rowLength).castTo(DataType.FLOAT));
        u.setInput(tokens, ws);
        assertThat(u.activate(false, ws)).isEqualTo(x);
    }

    /** The kernels compute in float32; in float16 the same configuration runs the SameDiff layer on its parameters. */
    @Test
    void inFloat16TheConfigurationsRunTheReferenceLayers() {
        Layer[][] pairs = {
            {instantiate(patches(true, 2, 5, VOLUME)), instantiate(patches(true, 2, 5, VOLUME), DataType.HALF)},
            {
                instantiate(unpatch(true, 2, 3, new int[] {2, 1, 3}, 5)),
                instantiate(unpatch(true, 2, 3, new int[] {2, 1, 3}, 5), DataType.HALF)
            }
        };
        INDArray[] inputs = {Nd4j.rand(DataType.FLOAT, 2, 3, 4, 2, 6), Nd4j.rand(DataType.FLOAT, 2, 5, 6)};
        for (int i = 0; i < 2; i++) {
            Layer single = pairs[i][0];
            Layer half = pairs[i][1];
            assertThat(single).isInstanceOfAny(PatchEmbedding3DKernelLayer.class, Unpatch3DKernelLayer.class);
            assertThat(half).isNotInstanceOfAny(PatchEmbedding3DKernelLayer.class, Unpatch3DKernelLayer.class);
            half.params().assign(single.params());
            LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
            single.setInput(inputs[i], ws);
            half.setInput(inputs[i].castTo(DataType.HALF), ws);
            assertRelativelyClose(half.activate(false, ws), single.activate(false, ws), 1e-2, "float16 output");
        }
    }

    @Test
    void patchGradientsMatchFiniteDifferences() {
        InputType small = InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 2, 4, 2, 2);
        checkAgainstFiniteDifferences(
                instantiate(patches(true, 2, 3, small)), Nd4j.randn(DataType.FLOAT, 2, 2, 2, 4, 2));
    }

    @Test
    void unpatchGradientsMatchFiniteDifferences() {
        checkAgainstFiniteDifferences(
                instantiate(unpatch(true, 1, 2, new int[] {1, 2, 2}, 3)), Nd4j.randn(DataType.FLOAT, 2, 3, 4));
    }

    @Test
    void recomputingGradientsMatchFiniteDifferences() {
        InputType small = InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 2, 4, 2, 2);
        PatchEmbedding3D p = new PatchEmbedding3DKernel(2, 3, true);
        p.setNIn(small, true);
        checkAgainstFiniteDifferences(instantiate(p), Nd4j.randn(DataType.FLOAT, 2, 2, 2, 4, 2));
        Unpatch3D u = new Unpatch3DKernel(1, 2, new int[] {1, 2, 2}, true);
        u.setNIn(InputType.recurrent(3, 4), true);
        checkAgainstFiniteDifferences(instantiate(u), Nd4j.randn(DataType.FLOAT, 2, 3, 4));
    }

    @Test
    void configurationsSurviveJson() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(VOLUME)
                .addLayer("p", new PatchEmbedding3DKernel(2, 6), "in")
                .addLayer("u", new Unpatch3DKernel(2, 3, new int[] {2, 1, 3}), "p")
                .addLayer("q", new PatchEmbedding3D(2, 4), "u")
                .addLayer("v", new Unpatch3D(2, 1, new int[] {2, 1, 3}), "q")
                .addLayer("r", new PatchEmbedding3DKernel(2, 6, true), "v")
                .addLayer("s", new Unpatch3DKernel(2, 3, new int[] {2, 1, 3}, true), "r")
                .setOutputs("s")
                .build();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(((PatchEmbedding3DKernel) layerOf(back, "r")).isRecompute()).isTrue();
        assertThat(((Unpatch3DKernel) layerOf(back, "s")).isRecompute()).isTrue();
        assertThat(((PatchEmbedding3DKernel) layerOf(back, "p")).isRecompute()).isFalse();
        assertThat(new PatchEmbedding3DKernel(2, 6, true)).isNotEqualTo(new PatchEmbedding3DKernel(2, 6));
        assertThat(back.getVertices().get("p").toString()).contains("PatchEmbedding3DKernel");
        assertThat(back.getVertices().get("u").toString())
                .contains("Unpatch3DKernel")
                .contains("grid=2x1x3");
    }

    @Test
    void patchesReadingANetworkInputSkipTheirInputGradientWithTheSameParameterGradients() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(VOLUME)
                .addLayer("p", new PatchEmbedding3DKernel(2, 6), "in")
                .addLayer("u", new Unpatch3DKernel(2, 3, new int[] {2, 1, 3}), "p")
                .addLayer("q", new PatchEmbedding3DKernel(2, 4), "u")
                .setOutputs("q")
                .build();
        InputGradients.skipWhereUnused(conf);
        PatchEmbedding3DKernel first = (PatchEmbedding3DKernel) layerOf(conf, "p");
        assertThat(first.inputGradient()).isFalse();
        assertThat(((PatchEmbedding3DKernel) layerOf(conf, "q")).inputGradient())
                .isTrue();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(((PatchEmbedding3DKernel) layerOf(back, "p")).inputGradient())
                .isFalse();
        assertThat(back).isEqualTo(conf);

        PatchEmbedding3DKernel full = patches3d(true);
        PatchEmbedding3DKernel skipping = patches3d(false);
        Layer k = instantiate(full);
        Layer s = instantiate(skipping);
        k.params().assign(Nd4j.randn(DataType.FLOAT, k.params().shape()));
        s.params().assign(k.params());
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 3, 4, 2, 6);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        k.setInput(x, ws);
        INDArray eps = Nd4j.randn(DataType.FLOAT, k.activate(true, ws).shape());
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, new INDArray[1]);
        Pair<Gradient, INDArray> none = forwardBackward(s, x, eps, new INDArray[1]);
        assertThat(g.getSecond().norm2Number().doubleValue()).isPositive();
        assertThat(none.getSecond().shape()).isEqualTo(x.shape());
        assertThat(none.getSecond().norm2Number().doubleValue()).isZero();
        assertThat(s.getGradientsViewArray().equalsWithEps(k.getGradientsViewArray(), 0))
                .isTrue();
    }

    private static PatchEmbedding3DKernel patches3d(boolean inputGradient) {
        PatchEmbedding3DKernel p = (PatchEmbedding3DKernel) patches(true, 2, 5, VOLUME);
        p.setInputGradient(inputGradient);
        return p;
    }

    private static Object layerOf(ComputationGraphConfiguration conf, String name) {
        return ((LayerVertex) conf.getVertices().get(name)).getLayerConf().getLayer();
    }
}
