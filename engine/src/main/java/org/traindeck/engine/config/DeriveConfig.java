package org.traindeck.engine.config;

/**
 * An input a numpy source derives from its targets, as a cascade's upper stage is trained (Ho et al. 2022): the
 * target average-pooled by {@code downsample} over each spatial axis, brought back to the target's size by nearest
 * neighbour when {@code upsample} (what a super-resolution stage usually concatenates with its noised sample), and
 * with Gaussian noise of standard deviation {@code noise} added to the training batches only (conditioning
 * augmentation; validation derives it clean).
 */
public record DeriveConfig(int downsample, double noise, boolean upsample) {}
