package org.traindeck.engine.train.step;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.AbstractSameDiffLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.regularization.WeightDecay;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.SyntheticData;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.schedule.ScaledSchedule;
import org.traindeck.engine.train.batch.BatchMaker;

/**
 * SameDiff layers (layer norm, attention, positions, patches) get the stage's optimizer like every other layer: its
 * schedule, its weight decay and their node's lr scale, not DL4J's placeholder Adam(1e-3).
 */
class SameDiffLayersOptimizerTest {

    private static ComputationGraph net(String kernel, double normScale) {
        ModelConfig.Graph graph = new ModelConfig.Graph(
                List.of(
                        new LayerSpec("a", "dense", null, Map.of("units", 4, "activation", "tanh", "bias", true)),
                        new LayerSpec(
                                "norm",
                                "layerNorm",
                                null,
                                Map.of("epsilon", 1e-5, "kernel", kernel, "lrScale", normScale))),
                new ModelConfig.Head("auto", "auto"));
        return ModelCompiler.build(graph, new ModelInput(InputType.feedForward(3), Task.CLASSIFICATION, 2), 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"dl4j", "own"})
    void aLayerNormLearnsAtItsNodesRateWithTheStagesDecay(String kernel) {
        ComputationGraph net = net(kernel, 0.5);
        OptimizerConfig adamw = new OptimizerConfig("adamw", 0.004, 0, 0.8, 0.99, 1e-7, 0.1);
        Optimizers.install(net, adamw, new FixedSchedule(0.004), false, Map.of("norm", 0.5));

        AbstractSameDiffLayer norm =
                (AbstractSameDiffLayer) net.getLayer("norm").conf().getLayer();
        Adam adam = (Adam) norm.getUpdaterByParam("gain");
        assertThat(adam.getLearningRateSchedule()).isEqualTo(new ScaledSchedule(new FixedSchedule(0.004), 0.5));
        assertThat(adam.getBeta1()).isEqualTo(0.8);
        assertThat(adam.getEpsilon()).isEqualTo(1e-7);
        // decay on weights only, as for DL4J's layers: a layer norm's gain and bias are bias parameters
        assertThat(norm.getRegularization()).containsExactly(new WeightDecay(0.1, true));
        assertThat(norm.getRegularizationByParam("gain")).isEmpty();
        assertThat(norm.getRegularizationByParam("bias")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"dl4j", "own"})
    void aLayerNormWithNoLearningRateStaysPut(String kernel) {
        ComputationGraph net = net(kernel, 0);
        OptimizerConfig adam = new OptimizerConfig("adam", 0.01, 0, 0.9, 0.999, 1e-8, 0);
        Optimizers.install(net, adam, new FixedSchedule(0.01), false, Map.of("norm", 0.0));
        INDArray normBefore = net.getLayer("norm").params().dup();
        INDArray denseBefore = net.getLayer("a").params().dup();

        Dataset data = SyntheticData.generate(new SyntheticSource(Task.CLASSIFICATION, 32, 3, null, 2, 0.5, 0), 1, 2);
        BatchMaker maker = new BatchMaker(data, false, null, DataType.FLOAT);
        int[] order = BatchMaker.epochOrder(data.size(), false, 0, 0, 0);
        TrainingStep step = new TrainingStep(net, false);
        for (int i = 0; i < 3; i++) {
            step.step(List.of(maker.batch(order, i, 8, 0, 0, 0, false)), i, 0, 0);
        }

        assertThat(net.getLayer("a").params()).isNotEqualTo(denseBefore);
        assertThat(net.getLayer("norm").params()).isEqualTo(normBefore);
    }
}
