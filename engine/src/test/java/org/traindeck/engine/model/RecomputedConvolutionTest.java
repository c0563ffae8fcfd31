package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.traindeck.engine.model.GraphFixture.built;
import static org.traindeck.engine.model.GraphFixture.firstError;
import static org.traindeck.engine.model.GraphFixture.model;
import static org.traindeck.engine.model.GraphFixture.row;

import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.memory.NetworkMemoryReport;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.model.fit.FitEstimate;
import org.traindeck.engine.model.nodes.RecomputeChains;
import org.traindeck.engine.model.nodes.RecomputedConvolution2D;
import org.traindeck.engine.model.nodes.RecomputedConvolution3D;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * {@code "recompute": true} on conv2d and conv3d nodes: the same parameters and gradients as without, less memory kept
 * from the forward to the backward pass (DL4J's activation workspace), and the fit estimate and summary follow it.
 */
class RecomputedConvolutionTest {

    @TempDir
    Path dir;

    /** A small U-Net: two levels, a concat skip, every convolution with {@code options}. */
    private static String unet(String options) {
        return """
                {"name": "e1", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"%1$s},
                {"name": "e2", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"%1$s},
                {"name": "down", "type": "maxPool2d", "size": 2},
                {"name": "mid", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"%1$s},
                {"name": "up", "type": "upsample2d", "size": 2},
                {"name": "skip", "type": "concat", "inputs": ["up", "e2"]},
                {"name": "d1", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "tanh"%1$s},
                {"type": "globalPool"}""".formatted(options);
    }

    /** A small 3D autoencoder body on the fixture's 8×8 images read as 4×4×4 volumes. */
    private static String volumes(String options) {
        return """
                {"type": "reshape", "shape": [1, 4, 4, 4]},
                {"name": "c1", "type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"%1$s},
                {"name": "c2", "type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"%1$s},
                {"name": "c2b", "type": "conv3d", "filters": 5, "kernel": 3, "activation": "relu"%1$s},
                {"name": "pool", "type": "maxPool3d", "size": 2},
                {"name": "up", "type": "upsample3d", "size": 2},
                {"name": "c3", "type": "conv3d", "filters": 3, "kernel": 3, "activation": "tanh"%1$s},
                {"type": "globalPool"}""".formatted(options);
    }

    private static final String ON = ", \"recompute\": true";

    @Test
    void aUnetsGradientsAreThoseWithoutRecompute() throws Exception {
        Nd4jRuntime.init();
        assertSameGradients(unet(""), unet(ON), RecomputedConvolution2D.class, 4, 1, false);
        assertSameGradients(unet(""), unet(ON), RecomputedConvolution2D.class, 4, 1, true);
    }

    @Test
    void aConv3dGraphsGradientsAreThoseWithoutRecompute() throws Exception {
        assertSameGradients(volumes(""), volumes(ON), RecomputedConvolution3D.class, 4, 2, false);
    }

    /**
     * Gradients of three steps in a row (parameters moving in between), and the activation workspace's size. {@code
     * links}: how many convolutions compute their input again from the convolution before them ({@link
     * RecomputeChains}): e1 into e2 in the U-Net (e2 feeds the pooling and the skip), c1 into c2 into c2b in the
     * volumes.
     */
    private void assertSameGradients(
            String plain, String recompute, Class<?> layerClass, int convolutions, int links, boolean oneDnn)
            throws Exception {
        ComputationGraphConfiguration a = ModelCompiler.configuration(model(plain, dir), GraphFixture.IMAGES, 3);
        ComputationGraphConfiguration b = ModelCompiler.configuration(model(recompute, dir), GraphFixture.IMAGES, 3);
        assertThat(b.getVertices().values())
                .filteredOn(v -> v instanceof LayerVertex l
                        && layerClass.isInstance(l.getLayerConf().getLayer()))
                .hasSize(convolutions);
        // replicas and checkpoints rebuild the graph from DL4J's JSON: the layer class must come back, not just equal
        ComputationGraphConfiguration json = ComputationGraphConfiguration.fromJson(b.toJson());
        assertThat(json).isEqualTo(b);
        assertThat(json.getVertices().values())
                .filteredOn(v -> v instanceof LayerVertex l
                        && layerClass.isInstance(l.getLayerConf().getLayer()))
                .hasSize(convolutions);
        Trained without = trainInOwnThread(a, oneDnn);
        Trained with = trainInOwnThread(b, oneDnn);
        assertThat(without.links).isZero();
        assertThat(with.links).isEqualTo(links);
        assertThat(with.paramNames).isEqualTo(without.paramNames);
        for (int step = 0; step < without.gradients.length; step++) {
            INDArray g0 = without.gradients[step];
            INDArray g1 = with.gradients[step];
            double scale = g0.amaxNumber().doubleValue();
            assertThat(scale).isGreaterThan(0);
            double relative = g1.sub(g0).amaxNumber().doubleValue() / scale;
            assertThat(relative).as("step %d, oneDNN %s", step, oneDnn).isLessThanOrEqualTo(1e-6);
        }
        if (!oneDnn) {
            // the cached forward intermediates are what the option leaves out
            assertThat(with.activationWorkspace).isLessThan(without.activationWorkspace);
        }
    }

    private record Trained(String paramNames, INDArray[] gradients, long activationWorkspace, int links) {}

    /** In a thread of its own: DL4J's workspaces are per thread, and their size is what is compared. */
    private static Trained trainInOwnThread(ComputationGraphConfiguration conf, boolean oneDnn) throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            return thread.submit(() -> train(conf, oneDnn)).get();
        } finally {
            thread.shutdown();
        }
    }

    private static Trained train(ComputationGraphConfiguration conf, boolean oneDnn) {
        ComputationGraph net = new ComputationGraph(conf.clone());
        net.init();
        int links = RecomputeChains.link(net);
        if (oneDnn) {
            assertThat(Nd4jRuntime.oneDnnUnavailableReason())
                    .as("the test JVM runs on the -onednn natives")
                    .isNull();
            // four convolutions and the pooling
            assertThat(OneDnnHelpers.install(net)).isEqualTo(5);
        }
        Random random = new Random(11);
        INDArray x = Nd4j.rand(new int[] {5, 1, 8, 8}, random.nextLong());
        INDArray y = Nd4j.zeros(5, 2);
        // five examples: the recomputing layers' slices are uneven (three and two)
        for (int i = 0; i < 5; i++) {
            y.putScalar(i, random.nextInt(2), 1);
        }
        INDArray[] gradients = new INDArray[3];
        for (int step = 0; step < gradients.length; step++) {
            net.setInputs(x);
            net.setLabels(y);
            net.computeGradientAndScore();
            gradients[step] = net.gradient().gradient().dup();
            // a plain gradient step, so that the next step's forward pass sees other parameters
            net.params().subi(gradients[step].mul(0.1));
        }
        long workspace = Nd4j.getWorkspaceManager().getAllWorkspacesForCurrentThread().stream()
                .filter(w -> w.getId().equals("WS_ALL_LAYERS_ACT"))
                .mapToLong(MemoryWorkspace::getCurrentSize)
                .sum();
        String names = String.join(",", net.paramTable().keySet());
        Nd4j.getWorkspaceManager().destroyAllWorkspacesForCurrentThread();
        return new Trained(names, gradients, workspace, links);
    }

    @Test
    void theSummaryMarksRecomputingNodesAndTheFitEstimateFollows() {
        ModelCheck.Checked plain = built(unet(""), dir);
        ModelCheck.Checked on = built(unet(ON), dir);
        assertThat(row(on.summary(), "e1").type()).isEqualTo("conv2d (recompute)");
        assertThat(row(on.summary(), "down").type()).isEqualTo("maxPool2d");
        assertThat(row(plain.summary(), "e1").type()).isEqualTo("conv2d");
        assertThat(on.summary().parameters()).isEqualTo(plain.summary().parameters());
        StageConfig stage = plain.result().config().stages().get(0);
        FitEstimate without = FitEstimate.model(
                        plain.conf(), plain.input(), plain.summary().parameters(), stage)
                .at(32);
        FitEstimate with = FitEstimate.model(on.conf(), on.input(), on.summary().parameters(), stage)
                .at(32);
        assertThat(with.weights()).isEqualTo(without.weights());
        assertThat(with.activations()).isLessThan(without.activations());

        ModelCheck.Checked volumesOn = built(volumes(ON), dir);
        ModelCheck.Checked volumesPlain = built(volumes(""), dir);
        assertThat(row(volumesOn.summary(), "c1").type()).isEqualTo("conv3d (recompute)");
        FitEstimate v0 = FitEstimate.model(
                        volumesPlain.conf(),
                        volumesPlain.input(),
                        volumesPlain.summary().parameters(),
                        stage)
                .at(32);
        FitEstimate v1 = FitEstimate.model(
                        volumesOn.conf(), volumesOn.input(), volumesOn.summary().parameters(), stage)
                .at(32);
        assertThat(v1.activations()).isLessThan(v0.activations());
    }

    @Test
    void chainsLinkAConvolutionToTheOneBeforeOnlyWhenNothingElseReadsItsOutput() {
        // e2 feeds the pooling and the skip, so only e1 is computed again (by e2)
        assertThat(RecomputeChains.links(built(unet(ON), dir).conf())).containsExactly(entry("e2", "e1"));
        assertThat(RecomputeChains.links(built(volumes(ON), dir).conf()))
                .containsOnly(entry("c2", "c1"), entry("c2b", "c2"));
        assertThat(RecomputeChains.links(built(volumes(""), dir).conf())).isEmpty();
    }

    @Test
    void theFitEstimateLeavesOutWhatAChainComputesAgain() {
        ModelCheck.Checked on = built(unet(ON), dir);
        NetworkMemoryReport report = (NetworkMemoryReport)
                on.conf().clone().getMemoryReport(on.input().input());
        Set<String> recomputing = Set.of("e1", "e2", "mid", "d1");
        long kept = FitEstimate.trainingBytes(report, recomputing, Set.of(), 32, DataType.FLOAT);
        long chained = FitEstimate.trainingBytes(report, recomputing, Set.of("e1"), 32, DataType.FLOAT);
        // e1's output: 4 channels of 8×8 floats per example
        assertThat(kept - chained).isEqualTo(32L * 4 * 64 * 4);
    }

    @Test
    void recomputeOnANodeWithNothingToRecomputeIsALocatedError() {
        ConfigProblem p = firstError("""
                {"type": "conv2d", "filters": 4, "kernel": 3},
                {"name": "down", "type": "maxPool2d", "size": 2, "recompute": true},
                {"type": "globalPool"}""", dir);
        assertThat(p.path()).startsWith("model.layers[1]");
        assertThat(p.message()).contains("recompute");
    }

    /**
     * DL4J's transposed convolutions keep only their input (their backward pass runs the forward pass again) and the
     * kernels only their output, which the next node keeps as its input anyway: nothing to recompute.
     */
    @ParameterizedTest
    @ValueSource(strings = {"deconv2d", "deconv3d"})
    void recomputeOnATransposedConvolutionIsALocatedError(String type) {
        ConfigProblem p = firstError("""
                {"type": "conv2d", "filters": 4, "kernel": 3},
                {"name": "up", "type": "%s", "filters": 2, "kernel": 2, "stride": 2, "recompute": true},
                {"type": "globalPool"}""".formatted(type), dir);
        assertThat(p.path()).startsWith("model.layers[1]");
        assertThat(p.message()).contains("recompute");
    }
}
