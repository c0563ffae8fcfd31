package org.traindeck.engine.model.kernels.conv;

/**
 * What a {@link SyncBatchNormLayer} on one replica exchanges with the same layer on the other replicas of a
 * synchronous step: per-channel statistics of the replicas' micro-batches of the same round, combined in replica
 * order so that every replica gets bit-identical figures. An exchange blocks until every replica of the round has
 * brought its part; it fails (never hangs) when another replica failed or none came in time.
 */
public interface BatchStatsExchange {

    /** Whether a synchronous step is under way: outside one (validation, a one-device measurement) the layer is plain BatchNorm. */
    boolean active();

    /**
     * The forward pass: this replica's example count (per channel), batch mean and biased variance; returns the count,
     * the means and the biased variances over every replica's micro-batch, as {@code [count, mean..., variance...]}.
     */
    double[] forward(String layer, long count, double[] mean, double[] variance);

    /** The backward pass: this replica's per-channel sums (Σ dy, Σ dy·x̂, Σ x̂); returns their sums over every replica. */
    double[] backward(String layer, double[] sums);
}
