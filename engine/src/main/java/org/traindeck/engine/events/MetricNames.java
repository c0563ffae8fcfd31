package org.traindeck.engine.events;

/** The names of the metrics the engine publishes. */
public final class MetricNames {

    public static final String TRAIN_LOSS = "train/loss";
    public static final String VAL_LOSS = "val/loss";
    public static final String VAL_ACCURACY = "val/accuracy";
    public static final String VAL_MSE = "val/mse";
    public static final String VAL_MAE = "val/mae";
    public static final String TRAIN_EPOCH_LOSS = "train/epoch_loss";
    public static final String LR = "lr";
    public static final String GRAD_NORM = "train/grad_norm";
    public static final String THROUGHPUT = "throughput/samples_per_s";
    public static final String EPOCH_TIME = "time/epoch_s";
    /** Data-parallel workers of the tier now running, and the global batch (per-device batch × workers). */
    public static final String WORKERS = "parallel/workers";
    public static final String GLOBAL_BATCH = "parallel/global_batch";
    /**
     * Total throughput ÷ (devices × one device's throughput), one device's being configured or measured alone at the
     * start of the tier.
     */
    public static final String SCALING_EFFICIENCY = "parallel/efficiency";
    /** Milliseconds per step spent summing gradients across devices and copying parameters back (synchronous tiers). */
    public static final String ALLREDUCE_MS = "parallel/allreduce_ms";
    /** Published at each stage start, so progress displays know how long an epoch is. */
    public static final String STEPS_PER_EPOCH = "progress/steps_per_epoch";

    private MetricNames() {
    }
}
