package org.traindeck.engine.config;

/** Which metric files a run writes, and how often per-step metrics are published. */
public record LoggingConfig(boolean jsonl, boolean csv, boolean tensorboard, int everySteps) {
}
