package org.traindeck.engine.train.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.schedule.ScaledSchedule;

/** A node's lrScale multiplies the stage's learning rate for that node only, and survives DL4J's configuration JSON. */
class LrScaleTest {

    @Test
    void onlyTheScaledNodeLearnsAtItsOwnRateAndItSurvivesTheJson() {
        ModelConfig.Graph graph = new ModelConfig.Graph(
                List.of(
                        new LayerSpec("a", "dense", null, Map.of("units", 4, "activation", "relu", "bias", true)),
                        new LayerSpec(
                                "b",
                                "dense",
                                null,
                                Map.of("units", 4, "activation", "relu", "bias", true, "lrScale", 0.01))),
                new ModelConfig.Head("auto", "auto"));
        ComputationGraph net =
                ModelCompiler.build(graph, new ModelInput(InputType.feedForward(3), Task.CLASSIFICATION, 2), 1);
        OptimizerConfig adam = new OptimizerConfig("adam", 0.002, 0, 0.9, 0.999, 1e-8, 0);

        Optimizers.install(net, adam, new FixedSchedule(0.002), false, LrScales.of(graph));

        assertThat(LrScales.of(graph)).containsExactly(Map.entry("b", 0.01));
        assertThat(lr(net, "a")).isEqualTo(0.002);
        assertThat(lr(net, "b")).isCloseTo(0.00002, within(1e-12));
        assertThat(lr(net, "output")).isEqualTo(0.002);
        ComputationGraphConfiguration back =
                ComputationGraphConfiguration.fromJson(net.getConfiguration().toJson());
        BaseLayer b = (BaseLayer)
                ((LayerVertex) back.getVertices().get("b")).getLayerConf().getLayer();
        assertThat(((Adam) b.getIUpdater()).getLearningRateSchedule())
                .isEqualTo(new ScaledSchedule(new FixedSchedule(0.002), 0.01));

        // a stage that keeps the optimizer state changes the rate and keeps the scale
        Optimizers.install(net, adam, new FixedSchedule(0.001), true, LrScales.of(graph));
        assertThat(lr(net, "a")).isEqualTo(0.001);
        assertThat(lr(net, "b")).isCloseTo(0.00001, within(1e-12));
    }

    private static double lr(ComputationGraph net, String node) {
        return ((BaseLayer) net.getLayer(node).conf().getLayer()).getIUpdater().getLearningRate(0, 0);
    }
}
