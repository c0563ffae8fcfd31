package org.traindeck.engine.train.callback;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.config.EmaConfig;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.ScheduleConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.SyntheticData;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.schedule.LrSchedule;
import org.traindeck.engine.schedule.Nd4jStageSchedule;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.step.Optimizers;
import org.traindeck.engine.train.step.TrainingStep;

/** The weight average on a tiny real DL4J network trained step by step, against its closed form. */
class WeightEmaTest {

    private static final Dataset DATA =
            SyntheticData.generate(new SyntheticSource(Task.CLASSIFICATION, 96, 6, null, 3, 0.5, 0), 1, 2);

    private static ComputationGraph tinyNet() {
        ModelConfig model = new ModelConfig.Mlp(List.of(4), ModelConfig.Activation.TANH, 0);
        ComputationGraph net = ModelCompiler.build(model, ModelCompiler.inputOf(model, DATA), 5);
        OptimizerConfig sgd = new OptimizerConfig("sgd", 0.5, 0.9, 0.9, 0.999, 1e-8, 0);
        StageConfig stage = new StageConfig(
                "s", 1, 16, sgd, new ScheduleConfig.Constant(), 0, 1, StageConfig.Precision.FLOAT32, null, 1, null);
        Optimizers.install(net, sgd, new Nd4jStageSchedule(LrSchedule.forStage(stage, 1), 0), false);
        return net;
    }

    private static BatchMaker.Batch batch(int b) {
        BatchMaker maker = new BatchMaker(DATA, false, null, DataType.FLOAT);
        return maker.batch(BatchMaker.epochOrder(DATA.size(), false, 0, 0, 0), b, 16, 0, 0, 0, false);
    }

    private static double[] doubles(INDArray a) {
        return a.castTo(DataType.DOUBLE).toDoubleVector();
    }

    private static double relativeDifference(float[] actual, double[] expected) {
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < expected.length; i++) {
            diff += (actual[i] - expected[i]) * (actual[i] - expected[i]);
            norm += expected[i] * expected[i];
        }
        return Math.sqrt(diff / norm);
    }

    @Test
    void theAverageEqualsItsClosedFormAfterTheStartAndBetweenUpdates() {
        double decay = 0.8;
        int startStep = 2;
        int every = 2;
        ComputationGraph net = tinyNet();
        TrainingStep step = new TrainingStep(net, false);
        WeightEma ema = new WeightEma();
        ema.beginStage(new EmaConfig(decay, startStep, every));
        ema.copyWeights(net);
        List<double[]> weights = new ArrayList<>();
        weights.add(doubles(net.params()));
        for (int n = 1; n <= 9; n++) {
            assertThat(step.step(List.of(batch((n - 1) % 6)), n - 1, 0, 0).applied())
                    .isTrue();
            ema.afterStep(net, n);
            weights.add(doubles(net.params()));

            // the closed form: the weights at startStep, then m updates at startStep + j·every
            int m = n <= startStep ? 0 : (n - startStep) / every;
            double[] expected = new double[weights.get(0).length];
            double[] base = weights.get(Math.min(n, startStep));
            for (int i = 0; i < expected.length; i++) {
                expected[i] = Math.pow(decay, m) * base[i];
                for (int j = 1; j <= m; j++) {
                    expected[i] += (1 - decay) * Math.pow(decay, m - j) * weights.get(startStep + j * every)[i];
                }
            }
            assertThat(relativeDifference(ema.values(), expected))
                    .as("after step %d", n)
                    .isLessThan(1e-6);
        }
        // it is an average, not the weights: they moved on after it
        assertThat(relativeDifference(ema.values(), weights.get(9))).isGreaterThan(1e-3);
    }

    @Test
    void decayZeroIsExactlyTheWeights() {
        ComputationGraph net = tinyNet();
        TrainingStep step = new TrainingStep(net, false);
        WeightEma ema = new WeightEma();
        ema.beginStage(new EmaConfig(0, 0, 1));
        ema.copyWeights(net);
        for (int n = 1; n <= 4; n++) {
            step.step(List.of(batch(n)), n - 1, 0, 0);
            ema.afterStep(net, n);
            assertThat(ema.values()).containsExactly(net.params().toFloatVector());
        }
    }

    @Test
    void swappingTheAverageInAndBackLeavesTheWeightsBitForBit() {
        ComputationGraph net = tinyNet();
        TrainingStep step = new TrainingStep(net, false);
        WeightEma ema = new WeightEma();
        ema.beginStage(new EmaConfig(0.5, 0, 1));
        ema.copyWeights(net);
        for (int n = 1; n <= 3; n++) {
            step.step(List.of(batch(n)), n - 1, 0, 0);
            ema.afterStep(net, n);
        }
        float[] before = net.params().toFloatVector();

        INDArray raw = ema.swapIn(net);
        assertThat(net.params().toFloatVector()).containsExactly(ema.values()).isNotEqualTo(before);
        ema.swapBack(net, raw);

        assertThat(net.params().toFloatVector()).containsExactly(before);
    }
}
