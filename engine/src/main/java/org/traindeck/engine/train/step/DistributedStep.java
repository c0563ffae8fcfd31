package org.traindeck.engine.train.step;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.parallel.DistributedSession;
import org.traindeck.engine.parallel.ShardWork;
import org.traindeck.engine.parallel.StepSum;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.health.LayerProbe;
import org.traindeck.engine.train.health.LayerSnapshot;
import org.traindeck.engine.train.health.LayerWatch;
import org.traindeck.engine.train.state.RunFailure;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * The synchronous step across a cluster: the same global batch and shards as {@link AllReduceStep} (executor i takes
 * the i-th run of accumulationSteps per-device batches), the executors read their shards' samples themselves (a step
 * sends positions) and compute their gradients on replicas that receive the driver's parameters each step, the
 * backend sums them, and the driver takes the one optimizer step.
 * The driver holds the only optimizer state, writes the checkpoints and metrics; a failed step changes nothing, and
 * stops the run with the machine named (a cluster run has no fallback: its checkpoint resumes anywhere). The session
 * outlives the step strategy: {@code TierChain} keeps it for the run's next stages and closes it at the run's end.
 */
public final class DistributedStep implements StepStrategy {

    private final DistributedSession session;
    private final ComputationGraph master;
    private final GradientUpdate update;
    private final long seed;
    private final int everySteps;
    private final LayerWatch watch;

    public DistributedStep(
            DistributedSession session, ComputationGraph master, long seed, int everySteps, LayerWatch watch) {
        this.watch = watch;
        this.session = session;
        this.master = master;
        this.update = new GradientUpdate(master);
        this.seed = seed;
        this.everySteps = everySteps;
    }

    @Override
    public void advance(TrainingState state, StagePlan plan, StepListener listener) {
        int start = state.cursor;
        int end = Math.min(start + plan.batchesPerStep, plan.batchesPerEpoch);
        long before = state.globalStep;
        StepSum sum = exchange(before + 1, shards(state, plan, start, end));
        if (master.gradient() == null) {
            bindGradient(firstBatch(state, plan, start));
        }
        master.getGradientsViewArray()
                .assign(ShardGradient.read(sum.gradientSum())
                        .reshape(master.getGradientsViewArray().shape()));
        double lr = plan.lrAfter(before);
        boolean publishes = (before + 1) % everySteps == 0 || end >= plan.batchesPerEpoch;
        LayerProbe probe = watch.probeFor(master, before + 1);
        GradientUpdate.Result r = update.apply(
                sum.lossSum(),
                sum.examples(),
                sum.microBatches(),
                (int) before,
                state.epoch,
                plan.stage.clipNorm(),
                publishes,
                before + 1 == state.faults.nanAtStep(),
                probe);
        LayerSnapshot layers = probe == null
                ? null
                : watch.finish(
                        probe,
                        r.applied(),
                        master,
                        firstBatch(state, plan, start).inputs(),
                        before + 1);
        listener.onStep(new StepReport(
                before + 1,
                end - start,
                r.loss(),
                r.gradNorm(),
                r.examples(),
                sum.examplesPerShard(),
                r.applied(),
                lr,
                sum.exchangeNanos(),
                Double.NaN,
                layers));
    }

    /** Executor i's share of the step: the i-th run of accumulationSteps micro-batches, as positions and seeds. */
    private List<ShardWork> shards(TrainingState state, StagePlan plan, int start, int end) {
        int k = plan.stage.accumulationSteps();
        int executors = session.executors().size();
        List<ShardWork> shards = new ArrayList<>(executors);
        for (int w = 0; w < executors; w++) {
            int from = Math.min(start + w * k, end);
            int to = Math.min(from + k, end);
            List<ShardWork.MicroBatch> micro = new ArrayList<>(to - from);
            for (int b = from; b < to; b++) {
                // executors read the samples themselves: a step sends their positions
                micro.add(new ShardWork.MicroBatch(b, StepSeeds.of(seed, state.globalStep, w * k + (b - from))));
            }
            shards.add(new ShardWork(state.epoch, plan.stage.batchSize(), micro));
        }
        return shards;
    }

    /** The executors' summed gradients for {@code step}; a failure stops the run, saying how to resume it. */
    private StepSum exchange(long step, List<ShardWork> shards) {
        try {
            return session.step(step, ShardGradient.write(master.params()), shards);
        } catch (TierFailure failure) {
            throw new RunFailure(
                    "the cluster step " + step + " failed: " + failure.getMessage()
                            + ". Resume it on the cluster (traindeck resume RUN --cluster spark://HOST:7077) or on one machine"
                            + " (traindeck resume RUN --devices cpu:"
                            + session.executors().size()
                            + ": the same training)",
                    failure);
        }
    }

    /** The step's first micro-batch, made on the driver. */
    private BatchMaker.Batch firstBatch(TrainingState state, StagePlan plan, int start) {
        return plan.batches.batch(state.order, start, plan.stage.batchSize(), seed, plan.index, state.epoch, true);
    }

    /**
     * DL4J's updater takes the gradient as the per-variable views that only a backward pass creates: the driver,
     * which computes none itself, makes them once with one micro-batch, whose values the step then overwrites.
     */
    private void bindGradient(BatchMaker.Batch batch) {
        master.setInputs(batch.inputs());
        master.setLabels(batch.labels());
        master.setLayerMaskArrays(null, batch.labelMask() == null ? null : new INDArray[] {batch.labelMask()});
        master.computeGradientAndScore();
        master.clearLayerMaskArrays();
        master.clearLayersStates();
    }

    @Override
    public void close() {
        // the session is the run's (TierChain's): the next stage goes on with the same executors
    }
}
