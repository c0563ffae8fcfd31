package org.traindeck.engine.parallel;

import java.io.Serializable;
import java.util.List;

/** One executor's part of a step: its micro-batches, in order. Sent over the network, so plain bytes. */
public record ShardWork(List<MicroBatch> batches) implements Serializable {

    /**
     * @param features {@code Nd4j.toByteArray} of the inputs
     * @param labels   {@code Nd4j.toByteArray} of the labels
     * @param seed     the random seed of this micro-batch (dropout), a function of its place in the global batch
     */
    public record MicroBatch(byte[] features, byte[] labels, int size, long seed) implements Serializable {}

    public ShardWork {
        batches = List.copyOf(batches);
    }
}
