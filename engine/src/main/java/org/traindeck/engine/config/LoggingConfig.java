package org.traindeck.engine.config;

/**
 * Which metric files a run writes, how often per-step metrics are published, the per-layer health figures
 * ({@code layers}) and the sample predictions ({@code samples}).
 */
public record LoggingConfig(
        boolean jsonl,
        boolean csv,
        boolean tensorboard,
        int everySteps,
        LayerHealthConfig layers,
        SamplesConfig samples) {

    public LoggingConfig {
        layers = layers == null ? LayerHealthConfig.DEFAULTS : layers;
        samples = samples == null ? SamplesConfig.OFF : samples;
    }

    /** Without sample predictions. */
    public LoggingConfig(boolean jsonl, boolean csv, boolean tensorboard, int everySteps, LayerHealthConfig layers) {
        this(jsonl, csv, tensorboard, everySteps, layers, SamplesConfig.OFF);
    }
}
