package org.traindeck.engine.events;

/** The names of the metrics the engine publishes. */
public final class MetricNames {

    public static final String TRAIN_LOSS = "train/loss";
    public static final String VAL_LOSS = "val/loss";
    public static final String VAL_ACCURACY = "val/accuracy";
    public static final String VAL_MSE = "val/mse";
    public static final String VAL_MAE = "val/mae";
    /** Segmentation: the fraction of pixels (voxels) given their class, and the mean over classes of intersection / union. */
    public static final String VAL_PIXEL_ACCURACY = "val/pixel_accuracy";

    public static final String VAL_MEAN_IOU = "val/mean_iou";
    /**
     * Reconstruction: peak signal-to-noise ratio in dB, the peak being the validation data's range; diffusion: of the
     * samples validation generates against the true ones.
     */
    public static final String VAL_PSNR = "val/psnr";
    /**
     * Diffusion with {@code diffusion.projections}: the mean absolute difference between the projections of the volumes
     * validation generates and their views (PSNR of those samples is val/psnr).
     */
    public static final String VAL_PROJECTION_ERROR = "val/projection_error";
    /** Sequence: e to the loss per token. */
    public static final String VAL_PERPLEXITY = "val/perplexity";
    /** Evaluation only (traindeck evaluate): the true class among the five most probable, with more than five classes. */
    public static final String VAL_TOP5_ACCURACY = "val/top5_accuracy";
    /** Evaluation only: regression's coefficient of determination, averaged over the targets. */
    public static final String VAL_R2 = "val/r2";
    /**
     * Evaluation only, per-step targets: the accuracy over a range of positions in the sequence,
     * {@code val/accuracy_by_step/1-4}, {@code /5-8}, {@code /9-16} …: how a trajectory model improves in context.
     */
    public static final String VAL_ACCURACY_BY_STEP_PREFIX = "val/accuracy_by_step/";

    public static final String TRAIN_EPOCH_LOSS = "train/epoch_loss";
    /** The validation metrics of a stage's weight average ("ema"): val_ema/loss beside val/loss, and so on. */
    public static final String VAL_EMA_PREFIX = "val_ema/";

    public static final String VAL_EMA_LOSS = VAL_EMA_PREFIX + "loss";
    public static final String VAL_EMA_ACCURACY = VAL_EMA_PREFIX + "accuracy";
    public static final String LR = "lr";
    public static final String GRAD_NORM = "train/grad_norm";
    public static final String THROUGHPUT = "throughput/samples_per_s";
    public static final String EPOCH_TIME = "time/epoch_s";
    /** The samples trained in the epoch (since the resume, for a resumed one) over its training time. */
    public static final String EPOCH_THROUGHPUT = "throughput/epoch_samples_per_s";
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
    /** Energy used per device at the run's end: {@code energy/<device>_wh}. */
    public static final String ENERGY_PREFIX = "energy/";

    private MetricNames() {}

    /** A validation figure: the weights' ({@code val/...}) or their average's ({@code val_ema/...}). */
    public static boolean isValidation(String name) {
        return name.startsWith("val/") || name.startsWith(VAL_EMA_PREFIX);
    }

    /** The weight average's name for a validation metric: val/loss → val_ema/loss. */
    public static String ofEma(String validationMetric) {
        return VAL_EMA_PREFIX + validationMetric.substring(validationMetric.indexOf('/') + 1);
    }

    /** The validation metric a weight-average metric stands beside (val_ema/loss → val/loss), or the name itself. */
    public static String withoutEma(String name) {
        return name.startsWith(VAL_EMA_PREFIX) ? "val/" + name.substring(VAL_EMA_PREFIX.length()) : name;
    }
}
