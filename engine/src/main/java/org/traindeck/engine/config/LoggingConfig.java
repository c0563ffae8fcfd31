package org.traindeck.engine.config;

/**
 * Which metric files a run writes, how often per-step metrics are published, and the per-layer health figures
 * ({@code layers}).
 */
public record LoggingConfig(boolean jsonl, boolean csv, boolean tensorboard, int everySteps, LayerHealthConfig layers) {

    public LoggingConfig {
        layers = layers == null ? LayerHealthConfig.DEFAULTS : layers;
    }
}
