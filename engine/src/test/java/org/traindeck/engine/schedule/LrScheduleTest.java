package org.traindeck.engine.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.learning.config.Adam;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.ScheduleConfig;
import org.traindeck.engine.config.StageConfig;

class LrScheduleTest {

    private static StageConfig stage(ScheduleConfig schedule, int epochs, double lr) {
        return new StageConfig(
                "s",
                epochs,
                32,
                new OptimizerConfig("adam", lr, 0.9, 0.9, 0.999, 1e-8, 0),
                schedule,
                0,
                1,
                StageConfig.Precision.FLOAT32,
                null,
                1,
                null);
    }

    @Test
    void constantStaysAtTheBaseRate() {
        LrSchedule s = LrSchedule.forStage(stage(new ScheduleConfig.Constant(), 3, 0.01), 10);
        assertThat(s.lrAt(0)).isEqualTo(0.01);
        assertThat(s.lrAt(29)).isEqualTo(0.01);
    }

    @Test
    void stepDecayMultipliesByGammaEveryNEpochs() {
        LrSchedule s = LrSchedule.forStage(stage(new ScheduleConfig.Step(2, 0.5), 6, 0.1), 10);
        assertThat(s.lrAt(0)).isEqualTo(0.1);
        assertThat(s.lrAt(19)).isEqualTo(0.1);
        assertThat(s.lrAt(20)).isCloseTo(0.05, within(1e-15));
        assertThat(s.lrAt(40)).isCloseTo(0.025, within(1e-15));
        assertThat(s.lrAt(59)).isCloseTo(0.025, within(1e-15));
    }

    @Test
    void warmupRisesLinearlyThenCosineFallsToTheMinimum() {
        // 100 steps: 10 of warmup, then 90 of cosine from 1.0 to 0.1
        LrSchedule s = LrSchedule.forStage(stage(new ScheduleConfig.WarmupCosine(10, null, 0.1), 10, 1.0), 10);
        assertThat(s.warmupSteps()).isEqualTo(10);
        assertThat(s.lrAt(0)).isCloseTo(0.1, within(1e-12));
        assertThat(s.lrAt(4)).isCloseTo(0.5, within(1e-12));
        assertThat(s.lrAt(9)).isCloseTo(1.0, within(1e-12));
        assertThat(s.lrAt(10)).isCloseTo(1.0, within(1e-12));
        // halfway through the decay the cosine is at the mean of max and min
        assertThat(s.lrAt(54)).isCloseTo(0.1 + 0.45 * (1 + Math.cos(Math.PI * 44 / 89.0)), within(1e-12));
        assertThat(s.lrAt(99)).isCloseTo(0.1, within(1e-12));
        for (int i = 10; i < 99; i++) {
            assertThat(s.lrAt(i + 1)).isLessThanOrEqualTo(s.lrAt(i));
        }
    }

    @Test
    void warmupInEpochsIsConvertedWithTheStageStepsPerEpoch() {
        LrSchedule s = LrSchedule.forStage(stage(new ScheduleConfig.WarmupCosine(null, 1.5, 0), 4, 0.2), 20);
        assertThat(s.warmupSteps()).isEqualTo(30);
        assertThat(s.totalSteps()).isEqualTo(80);
    }

    @Test
    void dl4jScheduleGivesTheSameValuesOffsetByTheStageStart() {
        LrSchedule s = LrSchedule.forStage(stage(new ScheduleConfig.WarmupCosine(5, null, 0.01), 2, 0.1), 25);
        Nd4jStageSchedule nd4j = new Nd4jStageSchedule(s, 1000);
        for (int step = 0; step < 50; step++) {
            assertThat(nd4j.valueAt(1000 + step, 0)).isEqualTo(s.lrAt(step));
        }
    }

    @Test
    void dl4jScheduleSurvivesTheConfigurationJson() {
        LrSchedule s = LrSchedule.forStage(stage(new ScheduleConfig.WarmupCosine(5, null, 0.01), 2, 0.1), 25);
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .updater(new Adam(new Nd4jStageSchedule(s, 40)))
                .graphBuilder()
                .addInputs("in")
                .addLayer("out", new OutputLayer.Builder().nIn(3).nOut(2).build(), "in")
                .setOutputs("out")
                .build();

        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());

        Adam adam = (Adam) ((BaseLayer) back.getVertices().values().stream()
                        .map(v -> ((LayerVertex) v).getLayerConf().getLayer())
                        .findFirst()
                        .orElseThrow())
                .getIUpdater();
        assertThat(adam.getLearningRateSchedule()).isEqualTo(new Nd4jStageSchedule(s, 40));
        assertThat(adam.getLearningRate(45, 0)).isEqualTo(s.lrAt(5));
    }
}
