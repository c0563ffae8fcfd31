package org.traindeck.engine.config;

/**
 * When checkpoints are written and which are kept. {@code everyEpochs} = 0 turns off the periodic ones (stage ends,
 * stops and the run's end are still saved); {@code everyMinutes} = 0 means no time-based ones. {@code monitor} picks
 * each stage's best checkpoint, lower or higher being better as {@code mode} says. {@code onWriteError}: "continue"
 * (warn and train on) or "stop" (stop the run cleanly, nothing lost).
 */
public record CheckpointPolicy(
        int everyEpochs,
        double everyMinutes,
        int keepLast,
        boolean keepBestPerStage,
        String monitor,
        String mode,
        String onWriteError) {

    public boolean higherIsBetter() {
        return "max".equals(mode);
    }
}
