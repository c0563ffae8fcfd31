package org.traindeck.engine.train.step;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.deeplearning4j.parallelism.ParallelWrapper;
import org.traindeck.engine.config.ParallelConfig;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Trains the rest of one epoch data-parallel with DL4J's ParallelWrapper, a fresh wrapper per call (a wrapper closes
 * itself at the end of fit, and re-fitting one is where SHARED_GRADIENTS deadlocked). One step is one round: each of
 * the W workers fits one batch, then the parameters (and optimizer state) are averaged. TrainDeck's own iterator
 * hands the batches out in its order, stops at a round boundary when asked, and a thread-safe listener turns the
 * workers' reports into one loss per step.
 */
final class ParallelEpoch {

    /** Called once per completed round, from a worker thread, in round order. */
    interface RoundSink {
        void onRound(long step, double meanLoss, long examples, long[] examplesPerWorker, long roundNanos);
    }

    /** How far the epoch got: batches consumed (all in complete rounds) and the rounds' loss sum. */
    record Outcome(int batchesConsumed, long rounds, double lossSum, long examples) {}

    /** Marks a failure injected for tests between two rounds, so the model is consistent. */
    static final class InjectedFailure extends RuntimeException {
        InjectedFailure(String message) {
            super(message);
        }
    }

    private ParallelEpoch() {}

    /** Trains the rest of the state's epoch on the plan's tier, from its cursor, until the end or a stop request. */
    static Outcome run(
            ComputationGraph net,
            StagePlan plan,
            TrainingState state,
            ParallelConfig settings,
            long seed,
            RoundSink sink) {
        long startStep = net.getConfiguration().getIterationCount();
        RoundListener listener = new RoundListener(
                plan.workers, startStep, sink, state.faults.failWorkerAtStep(), plan.stage.batchSize());
        EpochIterator iterator = iterator(plan, state, settings, seed);
        listener.roundSizes = iterator.roundSizes;
        ParallelWrapper wrapper = wrapper(net, plan.tier, plan.workers, settings, listener);
        try {
            wrapper.fit(iterator);
        } catch (RuntimeException e) {
            shutdown(wrapper);
            boolean consistent = causedBy(e, InjectedFailure.class) && listener.partialRound() == 0;
            throw new TierFailure(
                    plan.tier.description + " failed at step " + (startStep + listener.completedRounds.get() + 1) + ": "
                            + rootMessage(e),
                    consistent,
                    e);
        } finally {
            iterator.close();
            // worker 0 trains the model itself, and the wrapper leaves its listener attached to it
            net.setListeners(List.of());
        }
        net.getConfiguration().setIterationCount((int) (startStep + listener.completedRounds.get()));
        return new Outcome(
                listener.consumed.get(), listener.completedRounds.get(), listener.lossSum, listener.examples.get());
    }

    /** The state's remaining batches in its order, from its cursor, in rounds of the plan's workers. */
    private static EpochIterator iterator(StagePlan plan, TrainingState state, ParallelConfig settings, long seed) {
        return new EpochIterator(
                plan.batches,
                state.order,
                state.cursor,
                plan.batchesPerEpoch,
                plan.stage.batchSize(),
                seed,
                plan.index,
                state.epoch,
                plan.workers,
                () -> state.stopRequested,
                settings.prefetch() * plan.workers,
                state.faults.failRoundAtBatch());
    }

    /** A fresh wrapper for one fit, reporting to the listener; a failure to build one is the tier's failure. */
    private static ParallelWrapper wrapper(
            ComputationGraph net, Tier tier, int workers, ParallelConfig settings, RoundListener listener) {
        try {
            ParallelWrapper wrapper = new ParallelWrapper.Builder<>(net)
                    .workers(workers)
                    .prefetchBuffer(
                            0) // TrainDeck's iterator prefetches itself, with failures reaching the wrapper's thread
                    .averagingFrequency(settings.averagingFrequency())
                    .averageUpdaters(true)
                    .reportScoreAfterAveraging(false)
                    .trainingMode(
                            tier == Tier.SHARED_GRADIENTS
                                    ? ParallelWrapper.TrainingMode.SHARED_GRADIENTS
                                    : ParallelWrapper.TrainingMode.AVERAGING)
                    .build();
            wrapper.setListeners(listener);
            return wrapper;
        } catch (RuntimeException e) {
            throw new TierFailure("could not set up " + tier.description + ": " + e.getMessage(), true, e);
        }
    }

    private static void shutdown(ParallelWrapper wrapper) {
        try {
            wrapper.shutdown();
        } catch (RuntimeException e) {
            // the workers are already gone
        }
    }

    static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    /** Collects the workers' per-batch reports into rounds. */
    static final class RoundListener extends BaseTrainingListener {
        private final int workers;
        private final long startIteration;
        private final RoundSink sink;
        private final long failAtStep;
        private final int batchSize;
        private final Map<Model, Integer> workerIndex = new ConcurrentHashMap<>();
        private final AtomicIntegerArray reportsPerWorker;
        private final Map<Integer, Round> rounds = new ConcurrentHashMap<>();
        final AtomicLong completedRounds = new AtomicLong();
        final AtomicInteger consumed = new AtomicInteger();
        final AtomicLong examples = new AtomicLong();
        volatile double lossSum;
        volatile List<Integer> roundSizes;
        private volatile long lastRoundEnd = System.nanoTime();

        private static final class Round {
            int reports;
            double loss;
            long examples;
            final long[] perWorker;

            Round(int workers) {
                perWorker = new long[workers];
            }
        }

        RoundListener(int workers, long startIteration, RoundSink sink, long failAtStep, int batchSize) {
            this.workers = workers;
            this.startIteration = startIteration;
            this.sink = sink;
            this.failAtStep = failAtStep;
            this.batchSize = batchSize;
            this.reportsPerWorker = new AtomicIntegerArray(workers);
        }

        int partialRound() {
            return rounds.values().stream().mapToInt(r -> r.reports).sum();
        }

        /** Each worker fits its rounds in order, so its n-th report belongs to round n (DL4J's counters are not used). */
        @Override
        public void iterationDone(Model model, int iteration, int epoch) {
            int worker = workerIndex.computeIfAbsent(model, m -> workerIndex.size() % workers);
            int r = reportsPerWorker.getAndIncrement(worker);
            if (failAtStep > 0 && startIteration + r + 1 == failAtStep) {
                throw new IllegalStateException("injected worker failure at step " + failAtStep);
            }
            int n = model instanceof ComputationGraph g ? (int) g.batchSize() : batchSize;
            double loss = model.score();
            Round round = rounds.computeIfAbsent(r, k -> new Round(workers));
            boolean complete;
            synchronized (round) {
                round.reports++;
                round.loss += loss * n;
                round.examples += n;
                round.perWorker[worker] += n;
                List<Integer> sizes = roundSizes;
                int expected = sizes != null && r < sizes.size() ? sizes.get(r) : workers;
                complete = round.reports == expected;
            }
            if (complete) {
                rounds.remove(r);
                long now = System.nanoTime();
                long took = now - lastRoundEnd;
                lastRoundEnd = now;
                synchronized (this) {
                    lossSum += round.loss;
                }
                examples.addAndGet(round.examples);
                consumed.addAndGet(round.reports);
                completedRounds.incrementAndGet();
                sink.onRound(
                        startIteration + r + 1, round.loss / round.examples, round.examples, round.perWorker, took);
            }
        }
    }
}
