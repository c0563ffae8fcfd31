package org.traindeck.engine.train.step;

import java.util.List;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.BatchPrefetcher;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.health.LayerProbe;
import org.traindeck.engine.train.health.LayerSnapshot;
import org.traindeck.engine.train.health.LayerWatch;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/** One device: each step sums the gradients of its micro-batches (the whole global batch) and takes one optimizer step. */
public final class SingleDeviceStep implements StepStrategy {

    private final TrainingStep step;
    private final long seed;
    private final int everySteps;
    private final BatchPrefetcher prefetcher;
    private final ComputationGraph net;
    private final LayerWatch watch;

    /**
     * @param stepsAhead     steps whose batches are prepared ahead on a background thread (0: on the training thread)
     * @param onLoaderThread places that thread on the training device
     */
    public SingleDeviceStep(
            ComputationGraph net,
            StagePlan plan,
            long seed,
            int everySteps,
            int stepsAhead,
            Runnable onLoaderThread,
            LayerWatch watch) {
        this.net = net;
        this.watch = watch;
        this.step = new TrainingStep(net, plan.stage.optimizer().weightDecay() > 0);
        this.seed = seed;
        this.everySteps = everySteps;
        this.prefetcher = BatchPrefetcher.of(plan, seed, stepsAhead, onLoaderThread);
    }

    @Override
    public void advance(TrainingState state, StagePlan plan, StepListener listener) {
        int end = Math.min(state.cursor + plan.batchesPerStep, plan.batchesPerEpoch);
        List<BatchMaker.Batch> micro = prefetcher.take(state.order, state.epoch, state.cursor, end);
        long before = state.globalStep;
        double lr = plan.lrAfter(before);
        boolean publishes = (before + 1) % everySteps == 0 || end >= plan.batchesPerEpoch;
        LayerProbe probe = watch.probeFor(net, before + 1);
        TrainingStep.Result r = step.step(
                micro,
                (int) before,
                state.epoch,
                plan.stage.clipNorm(),
                publishes,
                before + 1 == state.faults.nanAtStep(),
                j -> StepSeeds.of(seed, before, j),
                probe);
        LayerSnapshot layers =
                watch.finish(probe, r.applied(), net, micro.get(0).inputs(), before + 1);
        listener.onStep(new StepReport(
                before + 1,
                micro.size(),
                r.loss(),
                r.gradNorm(),
                r.examples(),
                new long[] {r.examples()},
                r.applied(),
                lr,
                0,
                Double.NaN,
                layers));
    }

    @Override
    public void close() {
        prefetcher.close();
    }
}
