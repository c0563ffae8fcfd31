package org.traindeck.engine.parallel;

/**
 * A distributed step's gradients summed over every shard.
 *
 * @param gradientSum       {@code Nd4j.toByteArray} of the sum (unnormalized: the driver divides by the examples)
 * @param examplesPerShard  in shard order
 * @param computeNanos      each executor's time on its shard, in shard order
 * @param exchangeNanos     the step's wall time less the slowest executor's compute: scheduling, moving parameters
 *                          and gradients, summing
 */
public record StepSum(
        double lossSum,
        int examples,
        int microBatches,
        byte[] gradientSum,
        long[] examplesPerShard,
        long[] computeNanos,
        long exchangeNanos) {}
