package org.traindeck.engine.train.step;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;

/** A stage's optimizer reaches the layers inside DL4J's wrappers (Bidirectional, LastTimeStep, TimeDistributed). */
class WrappedLayersOptimizerTest {

    @Test
    void everyWrappedLayerGetsTheStagesOptimizer() {
        ModelConfig.Graph graph = new ModelConfig.Graph(
                List.of(
                        new LayerSpec(
                                "both",
                                "bidirectional",
                                null,
                                Map.of("units", 3, "mode", "concat", "returnSequences", true)),
                        new LayerSpec(
                                "perStep",
                                "dense",
                                null,
                                Map.of("units", 4, "activation", "tanh", "bias", true, "kernel", "dl4j")),
                        new LayerSpec("last", "lstm", null, Map.of("units", 2, "returnSequences", false))),
                new ModelConfig.Head("auto", "auto"));
        ModelInput input = new ModelInput(InputType.recurrent(5, 6), Task.CLASSIFICATION, 2);
        ComputationGraph net = ModelCompiler.build(graph, input, 1);

        Optimizers.install(net, new OptimizerConfig("sgd", 0.05, 0, 0, 0, 0, 0), new FixedSchedule(0.05), false);

        List<BaseLayer> layers = Optimizers.trainable(net);
        // two directions, the dense inside TimeDistributed, the LSTM inside LastTimeStep, the output layer
        assertThat(layers).hasSize(5);
        assertThat(layers).allSatisfy(l -> assertThat(l.getIUpdater()).isInstanceOf(Sgd.class));
    }
}
