package org.traindeck.engine.config;

/**
 * When checkpoints are written and which are kept. {@code everyMinutes} = 0 means no time-based checkpoints.
 * {@code monitor} names the metric that picks the best checkpoint per stage; {@code mode} is "min" or "max".
 */
public record CheckpointPolicy(int everyEpochs, double everyMinutes, int keepLast, boolean keepBestPerStage,
                               String monitor, String mode) {

    public static final CheckpointPolicy DEFAULT = new CheckpointPolicy(1, 0, 3, true, "val/loss", "min");
}
