package org.traindeck.engine.parallel;

import java.io.Serializable;

/**
 * What one executor computed for its shard.
 *
 * @param lossSum      the shard's loss summed over its examples
 * @param gradient     {@code Nd4j.toByteArray} of the summed, unnormalized gradient (null for an empty shard)
 * @param computeNanos the time the executor spent on the shard (its throughput)
 * @param executor     "executor 1 on 10.0.0.7 (pid 4242)"
 */
public record ShardResult(
        double lossSum, int examples, int microBatches, byte[] gradient, long computeNanos, String executor)
        implements Serializable {}
