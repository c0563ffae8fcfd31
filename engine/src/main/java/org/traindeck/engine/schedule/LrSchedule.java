package org.traindeck.engine.schedule;

import org.traindeck.engine.config.ScheduleConfig;
import org.traindeck.engine.config.StageConfig;

/**
 * A stage's learning rate as a pure function of the optimizer step within the stage (0-based). Everything that
 * reports or applies a learning rate goes through {@link #lrAt(long)}, so the logged curve is the applied one.
 *
 * @param totalSteps  optimizer steps in the stage (≥ 1)
 * @param warmupSteps linear warmup steps (warmupCosine only)
 * @param stepEvery   steps between decays (step only)
 */
public record LrSchedule(
        Kind kind, double baseLr, long totalSteps, long warmupSteps, long stepEvery, double gamma, double minLr) {

    public enum Kind {
        CONSTANT,
        STEP,
        WARMUP_COSINE
    }

    public static LrSchedule forStage(StageConfig stage, long stepsPerEpoch) {
        double base = stage.optimizer().learningRate();
        long total = Math.max(1, stepsPerEpoch * stage.epochs());
        ScheduleConfig s = stage.schedule();
        if (s instanceof ScheduleConfig.Step step) {
            long every = Math.max(1, Math.round(step.everyEpochs() * stepsPerEpoch));
            return new LrSchedule(Kind.STEP, base, total, 0, every, step.gamma(), 0);
        }
        if (s instanceof ScheduleConfig.WarmupCosine wc) {
            long warmup = wc.warmupSteps() != null ? wc.warmupSteps() : Math.round(wc.warmupEpochs() * stepsPerEpoch);
            return new LrSchedule(Kind.WARMUP_COSINE, base, total, Math.min(warmup, total), 0, 1, wc.minLearningRate());
        }
        return new LrSchedule(Kind.CONSTANT, base, total, 0, 0, 1, 0);
    }

    public double lrAt(long step) {
        long s = Math.max(0, step);
        return switch (kind) {
            case CONSTANT -> baseLr;
            case STEP -> baseLr * Math.pow(gamma, s / stepEvery);
            case WARMUP_COSINE -> {
                if (s < warmupSteps) {
                    // (s + 1) so that the very first update is not made with a rate of zero
                    yield baseLr * (s + 1) / warmupSteps;
                }
                long decaySteps = totalSteps - warmupSteps;
                if (decaySteps <= 1) {
                    yield baseLr;
                }
                double progress = Math.min(1.0, (double) (s - warmupSteps) / (decaySteps - 1));
                yield minLr + 0.5 * (baseLr - minLr) * (1 + Math.cos(Math.PI * progress));
            }
        };
    }
}
