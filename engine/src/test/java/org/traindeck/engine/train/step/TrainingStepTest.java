package org.traindeck.engine.train.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.stream.IntStream;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
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

/** Real DL4J networks on small synthetic data: the step's clipping and accumulation must change the update. */
class TrainingStepTest {

    private static final Dataset DATA =
            SyntheticData.generate(new SyntheticSource(Task.CLASSIFICATION, 64, 6, null, 3, 0.5, 0), 1, 2);

    private static ComputationGraph sgdNet(double lr, ModelConfig model, Dataset data) {
        ComputationGraph net = ModelCompiler.build(model, ModelCompiler.inputOf(model, data), 11);
        OptimizerConfig sgd = new OptimizerConfig("sgd", lr, 0.9, 0.9, 0.999, 1e-8, 0);
        StageConfig stage = new StageConfig(
                "s", 1, 16, sgd, new ScheduleConfig.Constant(), 0, 1, StageConfig.Precision.FLOAT32, null, 1, null);
        Optimizers.install(net, sgd, new Nd4jStageSchedule(LrSchedule.forStage(stage, 1), 0), false);
        return net;
    }

    private static ComputationGraph mlp() {
        return sgdNet(1.0, new ModelConfig.Mlp(List.of(8), ModelConfig.Activation.TANH, 0), DATA);
    }

    private static List<BatchMaker.Batch> batches(Dataset data, int batchSize, int count, boolean images) {
        BatchMaker maker = new BatchMaker(data, images, null, DataType.FLOAT);
        int[] order = BatchMaker.epochOrder(data.size(), false, 0, 0, 0);
        return IntStream.range(0, count)
                .mapToObj(b -> maker.batch(order, b, batchSize, 0, 0, 0, false))
                .toList();
    }

    @Test
    void clippingScalesTheUpdateToTheGlobalNorm() {
        ComputationGraph free = mlp();
        ComputationGraph clipped = mlp();
        INDArray before = free.params().dup();
        List<BatchMaker.Batch> batch = batches(DATA, 16, 1, false);

        TrainingStep.Result r1 = new TrainingStep(free, false).step(batch, 0, 0, 0);
        TrainingStep.Result r2 = new TrainingStep(clipped, false).step(batch, 0, 0, 0.01);

        double freeNorm = free.params().sub(before).norm2Number().doubleValue();
        double clippedNorm = clipped.params().sub(before).norm2Number().doubleValue();
        // plain SGD with lr 1: the update is the gradient itself
        assertThat(freeNorm).isCloseTo(r1.gradNorm(), within(1e-4 * r1.gradNorm()));
        assertThat(r1.gradNorm()).isGreaterThan(0.01);
        assertThat(r2.clipped()).isTrue();
        assertThat(clippedNorm).isCloseTo(0.01, within(1e-6));
        assertThat(r1.clipped()).isFalse();
    }

    @Test
    void accumulatingTwoHalvesEqualsOneFullBatch() {
        ComputationGraph whole = mlp();
        ComputationGraph accumulated = mlp();
        ComputationGraph firstHalfOnly = mlp();
        List<BatchMaker.Batch> full = batches(DATA, 16, 1, false);
        List<BatchMaker.Batch> halves = batches(DATA, 8, 2, false);

        TrainingStep.Result a = new TrainingStep(whole, false).step(full, 0, 0, 0);
        TrainingStep.Result b = new TrainingStep(accumulated, false).step(halves, 0, 0, 0);
        new TrainingStep(firstHalfOnly, false).step(halves.subList(0, 1), 0, 0, 0);

        assertThat(b.examples()).isEqualTo(16);
        assertThat(b.loss()).isCloseTo(a.loss(), within(1e-5));
        assertThat(b.gradNorm()).isCloseTo(a.gradNorm(), within(1e-5));
        INDArray diff = accumulated.params().sub(whole.params());
        assertThat(diff.amaxNumber().doubleValue()).isLessThan(1e-5);
        assertThat(firstHalfOnly.params().sub(whole.params()).amaxNumber().doubleValue())
                .isGreaterThan(1e-3);
    }

    @Test
    void theStepAdvancesTheIterationCountAndLowersTheLoss() {
        ComputationGraph net = sgdNet(0.1, new ModelConfig.Mlp(List.of(16), ModelConfig.Activation.RELU, 0), DATA);
        TrainingStep step = new TrainingStep(net, false);
        List<BatchMaker.Batch> all = batches(DATA, 64, 1, false);
        double first = step.step(all, 0, 0, 0).loss();
        double last = first;
        for (int i = 1; i < 60; i++) {
            last = step.step(all, i, 0, 0).loss();
        }
        assertThat(net.getConfiguration().getIterationCount()).isEqualTo(60);
        assertThat(last).isLessThan(first * 0.5);
    }

    @Test
    void batchNormStatisticsAreNeitherDividedNorClipped() {
        Dataset images = SyntheticData.generate(
                new SyntheticSource(Task.CLASSIFICATION, 32, null, List.of(8, 8, 1), 4, 0.3, 0), 1, 2);
        ModelConfig lenet = new ModelConfig.LeNet(List.of(4), 3, 8, ModelConfig.Activation.RELU, 0, true);
        ComputationGraph whole = sgdNet(0.05, lenet, images);
        ComputationGraph accumulated = sgdNet(0.05, lenet, images);

        new TrainingStep(whole, false).step(batches(images, 16, 1, true), 0, 0, 0);
        TrainingStep.Result r = new TrainingStep(accumulated, false).step(batches(images, 8, 2, true), 0, 0, 0);

        assertThat(Double.isFinite(r.loss())).isTrue();
        // BatchNorm normalises per micro-batch, so only the running statistics may differ slightly
        assertThat(accumulated.params().sub(whole.params()).amaxNumber().doubleValue())
                .isLessThan(0.05);
        INDArray runningMean = accumulated.getLayer("bn0").getParam("mean");
        assertThat(runningMean.amaxNumber().doubleValue()).isGreaterThan(0);
    }
}
