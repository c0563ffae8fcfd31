package org.traindeck.engine.train.step;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.parallel.BatchStatsGroup;
import org.traindeck.engine.parallel.GradientExchange;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.BatchPrefetcher;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.health.ActivationProbe;
import org.traindeck.engine.train.health.LayerProbe;
import org.traindeck.engine.train.health.LayerSnapshot;
import org.traindeck.engine.train.health.LayerWatch;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * TrainDeck's synchronous data-parallel step: the global batch (devices × accumulationSteps per-device batches, in
 * the epoch's order) is cut into contiguous shards, one per device; each replica computes its shard's gradient on its
 * own thread; the gradients are summed into the master's, and one optimizer step is taken (global-norm clipping
 * included), whose parameters every replica then holds. N devices × batch b × k accumulated is the same step as one
 * device × batch N·b·k, up to float rounding.
 * <p>
 * BatchNorm running statistics are averaged over every micro-batch of every device (not taken from device 0 as in
 * PyTorch DDP's broadcast_buffers): that makes N devices exactly the same as one device accumulating the N shards,
 * which is what the one-device fallback and a resume on another device count do. The batch statistics used in the
 * forward pass are per micro-batch, as with DDP, unless the layer is synchronized ({@code parallel.syncBatchNorm}, a
 * node's {@code sync}): then each round (every device's j-th micro-batch of the step) is normalised with the statistics
 * of all its devices' examples, forward and backward ({@link org.traindeck.engine.model.kernels.SyncBatchNormLayer}), so
 * N devices × batch b × k accumulated trains as one device × batch N·b × k accumulated.
 * <p>
 * A step either completes on every replica or changes nothing: a failing replica fails the tier before the update, so
 * the next tier repeats the same step from the same parameters.
 */
public final class AllReduceStep implements StepStrategy {

    /**
     * Parameters from which CPU workers sum and update in parts: below, the two more hand-offs a step costs weigh more
     * than half of the work (measured: the x-ray stage's 400 thousand values ~1.5 ms on one thread a step, a LeNet's
     * 54 thousand no gain).
     */
    static final long IN_PARTS_FROM = 1 << 17;

    private final ReplicaSet replicas;
    private final boolean inParts;
    private final List<ShardGradient> shards = new ArrayList<>();
    private final GradientUpdate update;
    private final long seed;
    private final int everySteps;
    private final BatchPrefetcher prefetcher;
    private final LayerWatch watch;
    /** Each replica's first micro-batch of the current step (null: none), where the layer figures look. */
    private final BatchMaker.Batch[] firstBatches;

    private double baseline;

    /**
     * @param baseline   one device's samples/s for the efficiency metric; 0 measures it before the first step
     * @param stepsAhead steps whose batches are prepared ahead on a background thread (0: on the replicas' threads);
     *                   only where the replicas share memory (CPU workers), as the thread makes them on one device
     */
    public AllReduceStep(
            ReplicaSet replicas,
            StagePlan plan,
            long seed,
            int everySteps,
            double baseline,
            int stepsAhead,
            LayerWatch watch) {
        this.watch = watch;
        this.replicas = replicas;
        boolean dataLossOnly = plan.stage.optimizer().weightDecay() > 0;
        for (int w = 0; w < replicas.size(); w++) {
            shards.add(new ShardGradient(replicas.replica(w), dataLossOnly));
        }
        this.inParts = replicas.sharedMemory() && replicas.replica(0).numParams() >= IN_PARTS_FROM;
        // CPU workers share the parameters: each sums and updates its part of them, at once
        this.update = new GradientUpdate(
                replicas.replica(0), true, inParts ? this::onEveryReplica : GradientUpdate.Parts.ONE);
        this.seed = seed;
        this.everySteps = everySteps;
        this.baseline = baseline > 0 ? baseline : Double.NaN;
        this.prefetcher = stepsAhead > 0 ? BatchPrefetcher.of(plan, seed, stepsAhead, () -> {}) : null;
        this.firstBatches = new BatchMaker.Batch[replicas.size()];
    }

    @Override
    public void advance(TrainingState state, StagePlan plan, StepListener listener) {
        int start = state.cursor;
        int end = Math.min(start + plan.batchesPerStep, plan.batchesPerEpoch);
        long before = state.globalStep;
        if (Double.isNaN(baseline)) {
            baseline = measureOneDevice(state, plan, start, Math.min(start + plan.stage.accumulationSteps(), end));
        }
        List<BatchMaker.Batch> prepared =
                prefetcher == null ? null : prefetcher.take(state.order, state.epoch, start, end);
        List<ShardGradient.Shard> done = computeShards(state, plan, start, end, prepared);
        Summed sum = Summed.of(done);
        long reduced = sumIntoMaster(done);
        ComputationGraph master = replicas.replica(0);
        double lr = plan.lrAfter(before);
        boolean publishes = (before + 1) % everySteps == 0 || end >= plan.batchesPerEpoch;
        // the master holds the summed gradient: its per-layer figures are the same for any device count
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
        long t1 = System.nanoTime();
        if (r.applied()) {
            replicas.broadcastParameters();
        }
        long exchange = reduced + System.nanoTime() - t1;
        LayerSnapshot layers =
                probe == null ? null : watch.finish(probe, r.applied(), this::activationsOnReplicas, before + 1);
        listener.onStep(new StepReport(
                before + 1,
                end - start,
                r.loss(),
                r.gradNorm(),
                r.examples(),
                sum.perDevice(),
                r.applied(),
                lr,
                exchange,
                baseline,
                layers));
    }

    /** Sums the other replicas' gradients into the master's; returns the nanoseconds it took. */
    private long sumIntoMaster(List<ShardGradient.Shard> done) {
        List<INDArray> others = new ArrayList<>(done.size());
        for (int w = 1; w < done.size(); w++) {
            if (done.get(w).examples() > 0) {
                others.add(replicas.replica(w).getGradientsViewArray());
            }
        }
        long t0 = System.nanoTime();
        INDArray target = replicas.replica(0).getGradientsViewArray();
        if (inParts) {
            onEveryReplica((part, parts) -> GradientExchange.reduceInto(target, others, part, parts));
        } else {
            GradientExchange.reduceInto(target, others);
        }
        return System.nanoTime() - t0;
    }

    /** The task's parts, part w on replica w's thread. */
    private void onEveryReplica(GradientUpdate.PartTask task) {
        int parts = replicas.size();
        replicas.onReplicas(w -> {
            task.run(w, parts);
            return null;
        });
    }

    /** The replicas' shards summed: the loss, the examples and micro-batches, and each device's examples. */
    private record Summed(double lossSum, int examples, int microBatches, long[] perDevice) {
        static Summed of(List<ShardGradient.Shard> done) {
            double lossSum = 0;
            int examples = 0;
            int micro = 0;
            long[] perDevice = new long[done.size()];
            for (int w = 0; w < done.size(); w++) {
                ShardGradient.Shard s = done.get(w);
                lossSum += s.lossSum();
                examples += s.examples();
                micro += s.microBatches();
                perDevice[w] = s.examples();
            }
            return new Summed(lossSum, examples, micro, perDevice);
        }
    }

    /** Each replica's gradient over its micro-batches of the step, on the replicas' threads. */
    private List<ShardGradient.Shard> computeShards(
            TrainingState state, StagePlan plan, int start, int end, List<BatchMaker.Batch> prepared) {
        int k = plan.stage.accumulationSteps();
        long before = state.globalStep;
        int last = replicas.size() - 1;
        boolean lastFails = before + 1 == state.faults.failWorkerAtStep();
        BatchStatsGroup stats = replicas.statsGroup();
        int devices = replicas.size();
        if (stats != null) {
            int[] counts = new int[devices];
            for (int w = 0; w < devices; w++) {
                counts[w] = positions(w, devices, k, end - start, true).length;
            }
            stats.beginStep(counts);
        }
        try {
            return replicas.onReplicas(w -> {
                if (w == last && lastFails) {
                    throw new IllegalStateException("injected worker failure at step " + (before + 1));
                }
                int[] at = positions(w, devices, k, end - start, stats != null);
                List<BatchMaker.Batch> mine = new ArrayList<>(at.length);
                for (int p : at) {
                    mine.add(prepared == null ? batch(state, plan, start + p) : prepared.get(p));
                }
                firstBatches[w] = mine.isEmpty() ? null : mine.get(0);
                return shards.get(w)
                        .compute(
                                mine,
                                j -> StepSeeds.of(seed, before, at[j]),
                                stats == null ? j -> {} : j -> stats.enterRound(w, j));
            });
        } finally {
            if (stats != null) {
                stats.endStep();
            }
        }
    }

    /**
     * The positions in the step's global batch of replica w's micro-batches: a contiguous run of k; or, with
     * synchronized BatchNorm, every devices-th from w (round j is then the global batch's j-th run of N micro-batches,
     * the very examples one device at batch N·b normalises together in its j-th accumulated micro-batch).
     */
    static int[] positions(int w, int devices, int k, int count, boolean interleaved) {
        if (!interleaved) {
            int from = Math.min(w * k, count);
            int to = Math.min(from + k, count);
            int[] out = new int[to - from];
            for (int j = 0; j < out.length; j++) {
                out[j] = from + j;
            }
            return out;
        }
        int n = w >= count ? 0 : (count - w + devices - 1) / devices;
        int[] out = new int[Math.min(n, k)];
        for (int j = 0; j < out.length; j++) {
            out[j] = w + j * devices;
        }
        return out;
    }

    private BatchMaker.Batch batch(TrainingState state, StagePlan plan, int at) {
        return plan.batches.batch(state.order, at, plan.stage.batchSize(), seed, plan.index, state.epoch, true);
    }

    /**
     * The activation pass of the step's layer figures split between the replicas, as the step was: each passes the
     * start of its own first micro-batch forward on its own thread ({@link ActivationProbe#MAX_EXAMPLES} examples in
     * all), and their moments are merged. Its failure fails the run, not the tier: the step's update is already made.
     */
    private Map<String, ActivationProbe.Moments> activationsOnReplicas(List<String> nodes) {
        int each = (ActivationProbe.MAX_EXAMPLES + replicas.size() - 1) / replicas.size();
        try {
            return ActivationProbe.merged(replicas.onReplicas(w -> firstBatches[w] == null
                    ? Map.of()
                    : ActivationProbe.moments(replicas.replica(w), firstBatches[w].inputs(), nodes, each)));
        } catch (TierFailure e) {
            throw new IllegalStateException("the layer figures' activation pass failed: " + e.getMessage(), e);
        }
    }

    private List<BatchMaker.Batch> batches(TrainingState state, StagePlan plan, int from, int to) {
        List<BatchMaker.Batch> out = new ArrayList<>(Math.max(0, to - from));
        for (int b = from; b < to; b++) {
            out.add(plan.batches.batch(state.order, b, plan.stage.batchSize(), seed, plan.index, state.epoch, true));
        }
        return out;
    }

    /**
     * One device's throughput, measured in this run for the scaling-efficiency metric: the last replica computes the
     * first shard's gradient alone (once to warm up, then twice timed) while the others wait. It changes nothing:
     * the gradient is written to that replica's own buffer, which the next step overwrites.
     */
    private double measureOneDevice(TrainingState state, StagePlan plan, int from, int to) {
        int last = replicas.size() - 1;
        long before = state.globalStep;
        List<BatchMaker.Batch> micro = batches(state, plan, from, to);
        double[] seconds = new double[1];
        int[] examples = new int[1];
        replicas.onReplicas(w -> {
            if (w == last) {
                shards.get(w).compute(micro, j -> StepSeeds.of(seed, before, j));
                long t = System.nanoTime();
                for (int i = 0; i < 2; i++) {
                    examples[0] += shards.get(w)
                            .compute(micro, j -> StepSeeds.of(seed, before, j))
                            .examples();
                }
                seconds[0] = (System.nanoTime() - t) / 1e9;
            }
            return null;
        });
        return seconds[0] > 0 ? examples[0] / seconds[0] : Double.NaN;
    }

    @Override
    public void close() {
        try {
            if (prefetcher != null) {
                prefetcher.close();
            }
        } finally {
            replicas.close();
        }
    }
}
