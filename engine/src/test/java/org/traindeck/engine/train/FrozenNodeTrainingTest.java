package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.model.Frozen;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.train.step.LrScales;
import org.traindeck.engine.train.step.Optimizers;
import org.traindeck.engine.use.TrainedModel;

/**
 * A node with "trainable": false keeps its parameters bit for bit (BatchNorm's statistics too) through stages on
 * TrainDeck's fused Adam with weight decay and clipping and on DL4J's updater (Nesterov, accumulation), holds no
 * optimizer state, is marked in validate --summary, and a run stopped and resumed with it is the same run.
 */
class FrozenNodeTrainingTest {

    static final String TWO_STAGES = """
            {"name": "%s", "outputDir": "out", "seed": 8,
             "model": {"type": "graph", "layers": [
                 {"name": "dense0", "type": "dense", "units": 12, "activation": "relu"},
                 {"name": "norm", "type": "batchNorm", "trainable": false},
                 {"name": "dense1", "type": "dense", "units": 8, "activation": "tanh", "trainable": false},
                 {"name": "dense2", "type": "dense", "units": 8, "activation": "relu"}]},
             "data": {"train": {"type": "synthetic", "samples": 160, "features": 6, "numClasses": 3, "noise": 0.5},
                      "validationSplit": 0.2},
             "stages": [
               {"name": "a", "epochs": 2, "batchSize": 16, "gradientClipping": 0.5,
                "optimizer": {"type": "adamw", "learningRate": 0.01, "weightDecay": 0.05}},
               {"name": "b", "epochs": 1, "batchSize": 8, "accumulationSteps": 2,
                "optimizer": {"type": "nesterovs", "learningRate": 0.01, "weightDecay": 0.05}}]}
            """;

    @TempDir
    Path dir;

    private RunConfig config(String name) {
        return ConfigParser.parse(TWO_STAGES.formatted(name), dir).orThrow();
    }

    @Test
    void aFrozenNodeHoldsNoOptimizerStateAndKeepsItThroughAStageThatKeepsTheState() {
        ModelConfig.Graph graph = new ModelConfig.Graph(
                List.of(
                        new LayerSpec(
                                "a",
                                "dense",
                                null,
                                Map.of("units", 4, "activation", "relu", "bias", true, "trainable", false)),
                        new LayerSpec(
                                "b",
                                "dense",
                                null,
                                Map.of("units", 4, "activation", "relu", "bias", true, "trainable", true))),
                new ModelConfig.Head("auto", "auto"));
        ComputationGraph net =
                ModelCompiler.build(graph, new ModelInput(InputType.feedForward(3), Task.CLASSIFICATION, 2), 1);
        OptimizerConfig adam = new OptimizerConfig("adam", 0.002, 0.01, 0.9, 0.999, 1e-8, 0);

        Optimizers.install(net, adam, new FixedSchedule(0.002), false, LrScales.of(graph));

        long trained = net.numParams() - net.getLayer("a").numParams();
        assertThat(net.getUpdater().getStateViewArray().length()).isEqualTo(2 * trained);
        assertThat(Frozen.is(net.getLayer("a"))).isTrue();
        assertThat(Frozen.is(net.getLayer("b"))).isFalse();
        BaseLayer a = (BaseLayer) net.getLayer("a").conf().getLayer();
        assertThat(a.getRegularization()).isEmpty();
        ComputationGraphConfiguration back =
                ComputationGraphConfiguration.fromJson(net.getConfiguration().toJson());
        assertThat(Frozen.is(((BaseLayer) ((LayerVertex) back.getVertices().get("a"))
                                .getLayerConf()
                                .getLayer())
                        .getIUpdater()))
                .as("replicas and checkpoints rebuild it from DL4J's JSON")
                .isTrue();

        Optimizers.install(net, adam, new FixedSchedule(0.001), true, LrScales.of(graph));
        assertThat(Frozen.is(net.getLayer("a"))).isTrue();
        assertThat(net.getUpdater().getStateViewArray().length()).isEqualTo(2 * trained);
    }

    @Test
    void aFrozenTransformerBlockAndLayerNormKeepTheirWeightsWhileTheHeadLearns() throws Exception {
        String vit = """
                {"name": "%s", "outputDir": "out", "seed": 2,
                 "model": {"type": "graph", "layers": [
                     {"name": "patches", "type": "patches", "size": 4, "units": 16, "classToken": true},
                     {"name": "block1", "type": "transformerBlock", "heads": 2, "mlpRatio": 2, "trainable": false,
                      "kernel": "%s"},
                     {"name": "norm", "type": "layerNorm", "trainable": false},
                     {"name": "token", "type": "firstToken"}]},
                 "data": {"train": {"type": "synthetic", "samples": 64, "imageShape": [8, 8, 1], "numClasses": 3}},
                 "stages": [{"name": "tune", "epochs": 2, "batchSize": 16, "gradientClipping": 1,
                             "optimizer": {"type": "adamw", "learningRate": 0.01, "weightDecay": 0.1}}]}
                """;
        // on DL4J's layers (and on a CUDA backend) the block is spelled as five layers: each of them is frozen
        for (String kernel : List.of("own", "dl4j")) {
            RunResult first = TestRuns.stopAfterStep(
                    ConfigParser.parse(vit.formatted(kernel + "-start", kernel), dir)
                            .orThrow(),
                    1);
            ComputationGraph start = TrainedModel.open(first.runDir(), false).network();
            RunResult tuned = TrainingRun.open(
                            RunRequest.of(ConfigParser.parse(vit.formatted(kernel + "-tuned", kernel), dir)
                                    .orThrow()))
                    .runHere();
            assertThat(tuned.status()).isEqualTo(RunResult.Status.FINISHED);
            ComputationGraph end = TrainedModel.open(tuned.runDir(), false).network();
            long frozen = 0;
            for (Layer layer : start.getLayers()) {
                if (layer.numParams() == 0) {
                    continue;
                }
                String name = layer.conf().getLayer().getLayerName();
                float[] before = layer.params().dup().data().asFloat();
                float[] after = end.getLayer(name).params().dup().data().asFloat();
                if (name.startsWith("block1") || name.equals("norm")) {
                    assertThat(after).as("frozen %s (%s)", name, kernel).containsExactly(before);
                    frozen += before.length;
                } else {
                    assertThat(after).as("learning %s (%s)", name, kernel).isNotEqualTo(before);
                }
            }
            assertThat(frozen).as("frozen values (%s)", kernel).isGreaterThan(2000);
        }
    }

    @Test
    void validateSummaryMarksTheFrozenNodes() throws Exception {
        Path file = dir.resolve("frozen.json");
        Files.writeString(file, TWO_STAGES.formatted("summary"));
        MainAccess.Result r = MainAccess.run("validate", "--summary", file.toString());
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(r.stdout())
                .containsPattern("norm +batchNorm \\(frozen\\) ")
                .containsPattern("dense1 +dense \\(frozen\\) ")
                .containsPattern("dense2 +dense +dense1");
    }

    @Test
    void frozenNodesAreBitIdenticalAfterEveryStageAndAResumeIsTheSameRun() throws Exception {
        RunResult first = TestRuns.stopAfterStep(config("first-step"), 1);
        TrainedModel start = TrainedModel.open(first.runDir(), false);

        RunResult straight = TrainingRun.open(RunRequest.of(config("straight"))).runHere();
        assertThat(straight.status()).isEqualTo(RunResult.Status.FINISHED);
        TrainedModel end = TrainedModel.open(straight.runDir(), false);
        for (String param :
                List.of("dense1_W", "dense1_b", "norm_gamma", "norm_beta", "norm_mean", "norm_log10stdev")) {
            assertThat(end.network().getParam(param).dup().data().asFloat())
                    .as("frozen %s after both stages", param)
                    .containsExactly(
                            start.network().getParam(param).dup().data().asFloat());
        }
        assertThat(end.network().getParam("dense0_W").dup().data().asFloat())
                .as("the node before the frozen ones learns through them")
                .isNotEqualTo(start.network().getParam("dense0_W").dup().data().asFloat());

        RunResult stopped = TestRuns.stopAfterStep(config("stopped"), 13);
        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();
        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(CheckpointFiles.read(resumed.lastCheckpoint()).params())
                .containsExactly(CheckpointFiles.read(straight.lastCheckpoint()).params());
    }
}
