package org.traindeck.engine.events;

/**
 * One metric value, for example {@code train/loss} at step 120. {@code device} is null for run-wide values and
 * names the device ("cpu", "gpu0") for per-device ones.
 */
public record MetricEvent(
        String runName,
        String stage,
        int stageIndex,
        int epoch,
        long step,
        long wallTimeMillis,
        double elapsedSeconds,
        String name,
        double value,
        String device)
        implements RunEvent {}
