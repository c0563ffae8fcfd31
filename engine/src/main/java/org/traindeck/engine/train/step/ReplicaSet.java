package org.traindeck.engine.train.step;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.model.SyncBatchNorms;
import org.traindeck.engine.model.kernels.conv.SyncBatchNormLayer;
import org.traindeck.engine.model.nodes.RecomputeChains;
import org.traindeck.engine.parallel.BatchStatsGroup;
import org.traindeck.engine.parallel.DevicePlacement;
import org.traindeck.engine.parallel.GradientExchange;
import org.traindeck.engine.parallel.TierFailure;

/**
 * One model replica per device and one thread per replica, bound to its device. Replica 0 is the master model itself,
 * computed on the training thread (bound to the first device); the others are built from the master's configuration
 * (a copy in memory, not a JSON round trip) and, on CPU workers, share the master's parameter array. When the model
 * has synchronized BatchNorm layers, the replicas' layers meet in one {@link BatchStatsGroup}; a replica that fails
 * aborts it, so that the others do not wait for it.
 */
public final class ReplicaSet implements AutoCloseable {

    private final ComputationGraph master;
    private final DevicePlacement placement;
    private final List<ComputationGraph> replicas = new ArrayList<>();
    private final List<ReplicaThread> threads = new ArrayList<>();
    private final BatchStatsGroup statsGroup;

    /**
     * @param onEveryModel what TrainDeck does to every model it trains (layer helpers), applied to each new replica
     */
    public ReplicaSet(
            ComputationGraph master,
            DevicePlacement placement,
            String runName,
            Consumer<ComputationGraph> onEveryModel) {
        this(master, placement, runName, onEveryModel, EXCHANGE_TIMEOUT);
    }

    /** How long a replica waits for the others at one synchronized BatchNorm exchange: far more than any one layer takes. */
    static final Duration EXCHANGE_TIMEOUT = Duration.ofMinutes(5);

    /** @param exchangeTimeout how long a replica waits at a synchronized BatchNorm exchange before the step fails */
    ReplicaSet(
            ComputationGraph master,
            DevicePlacement placement,
            String runName,
            Consumer<ComputationGraph> onEveryModel,
            Duration exchangeTimeout) {
        this.master = master;
        this.placement = placement;
        replicas.add(master);
        for (int w = 1; w < placement.workers(); w++) {
            int worker = w;
            threads.add(new ReplicaThread(
                    "traindeck-replica-" + worker + "-" + runName, () -> placement.attachCurrentThread(worker)));
        }
        List<ComputationGraph> built;
        try {
            built = onReplicas(w -> w == 0 ? master : build(onEveryModel));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        replicas.clear();
        replicas.addAll(built);
        statsGroup = !SyncBatchNorms.in(master).isEmpty() && replicas.size() > 1
                ? new BatchStatsGroup(replicas.size(), exchangeTimeout)
                : null;
        for (int w = 0; w < replicas.size(); w++) {
            for (Layer layer : replicas.get(w).getLayers()) {
                if (layer instanceof SyncBatchNormLayer sync) {
                    sync.exchange(statsGroup == null ? null : statsGroup.member(w));
                }
            }
        }
    }

    /** Where the replicas' synchronized BatchNorm layers meet; null when the model has none. */
    BatchStatsGroup statsGroup() {
        return statsGroup;
    }

    private ComputationGraph build(Consumer<ComputationGraph> onEveryModel) {
        ComputationGraph replica =
                new ComputationGraph(master.getConfiguration().clone());
        if (placement.sharedMemory()) {
            replica.init(master.params(), false);
        } else {
            replica.init();
            GradientExchange.copyParameters(master.params(), replica.params());
        }
        replica.initGradientsView();
        RecomputeChains.link(replica);
        onEveryModel.accept(replica);
        return replica;
    }

    /** Whether the replicas share the master's parameters (CPU workers): then they can sum and update in parts. */
    boolean sharedMemory() {
        return placement.sharedMemory() && replicas.size() > 1;
    }

    int size() {
        return replicas.size();
    }

    ComputationGraph replica(int w) {
        return replicas.get(w);
    }

    /**
     * Runs {@code task(w)} for every replica at once, each on its own thread (replica 0 on the calling thread), and
     * returns the results in replica order. A failure of any replica is a failure of the tier.
     */
    <T> List<T> onReplicas(IntFunction<T> body) {
        IntFunction<T> task = statsGroup == null
                ? body
                : w -> {
                    try {
                        return body.apply(w);
                    } catch (RuntimeException | Error e) {
                        statsGroup.abort(e);
                        throw e;
                    }
                };
        for (int w = 1; w <= threads.size(); w++) {
            int worker = w;
            threads.get(w - 1).post(() -> task.apply(worker));
        }
        List<T> results = new ArrayList<>(threads.size() + 1);
        RuntimeException failure = null;
        try {
            results.add(task.apply(0));
        } catch (RuntimeException e) {
            failure = e;
        }
        for (int w = 1; w <= threads.size(); w++) {
            try {
                @SuppressWarnings("unchecked")
                T result = (T) threads.get(w - 1).await();
                results.add(result);
            } catch (ExecutionException e) {
                if (failure == null) {
                    Throwable cause = e.getCause();
                    failure = cause instanceof TierFailure tf
                            ? tf
                            : new TierFailure(
                                    "the replica on " + placement.deviceIds().get(w) + " failed: " + cause,
                                    true,
                                    cause);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TierFailure("interrupted while waiting for the replicas", true, e);
            }
        }
        if (failure != null) {
            throw failure instanceof TierFailure
                    ? failure
                    : new TierFailure(
                            "the replica on " + placement.deviceIds().get(0) + " failed: " + failure, true, failure);
        }
        return results;
    }

    /** Copies the master's new parameters to the replicas that hold their own (none on CPU workers). */
    void broadcastParameters() {
        if (placement.sharedMemory()) {
            return;
        }
        onReplicas(w -> {
            GradientExchange.copyParameters(master.params(), replicas.get(w).params());
            return null;
        });
    }

    @Override
    public void close() {
        threads.forEach(ReplicaThread::close);
    }
}
