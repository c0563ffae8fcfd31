package org.traindeck.engine.parallel;

import java.util.List;

/**
 * A run's connection to a cluster: one model replica per executor, for the whole run (its executors start once).
 * Each {@link #step} hands executor {@code i} the parameters and shard {@code i}, and returns the shards' gradients
 * summed. A step either completes on every executor or fails as a whole.
 */
public interface DistributedSession extends AutoCloseable {

    /** The executors, in shard order, as a person reads them: "executor 1 on 10.0.0.7". */
    List<String> executors();

    /**
     * One step's gradients.
     *
     * @param params the master's parameters ({@code Nd4j.toByteArray}), the same for every shard
     * @param shards one per executor, in order
     * @throws TierFailure when an executor dies, the cluster goes away, or the step outlasts the step timeout; the
     *                     message names the machine. The driver's model is untouched: the step can be repeated.
     */
    StepSum step(long step, byte[] params, List<ShardWork> shards);

    /**
     * Moves every executor to the run's next stage before its first step: the stage's data (an executor loads it only
     * when its data config differs from those it has loaded; a new source's files are checked as at the start), the
     * model (built again only when it changed, as with another precision) and how the loss is reported.
     *
     * @param modelJson    the stage's model architecture (DL4J ComputationGraph JSON)
     * @param data         the stage's data, with {@link ShardData#stage()} the new stage
     * @param dataLossOnly report the loss without the weight-decay penalty
     * @throws TierFailure as {@link DistributedBackend#open} and {@link #step} do, naming the machine
     */
    void nextStage(String modelJson, ShardData data, boolean dataLossOnly);

    @Override
    void close();
}
