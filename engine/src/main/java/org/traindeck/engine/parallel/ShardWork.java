package org.traindeck.engine.parallel;

import java.io.Serializable;
import java.util.List;

/**
 * One executor's part of a step: which of the epoch's batches it computes, in order. Executors read the samples
 * themselves ({@link ShardData}), so a step sends positions, not data.
 *
 * @param epoch     the epoch, whose sample order the executor derives as the driver does
 * @param batchSize the per-device batch size the positions count in
 */
public record ShardWork(int epoch, int batchSize, List<MicroBatch> batches) implements Serializable {

    /**
     * @param index the batch's position in the epoch (batch {@code index} of size {@code batchSize})
     * @param seed  the random seed of this micro-batch (dropout), a function of its place in the global batch
     */
    public record MicroBatch(int index, long seed) implements Serializable {}

    public ShardWork {
        batches = List.copyOf(batches);
    }
}
