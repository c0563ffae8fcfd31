package org.traindeck.engine.use.predict;

/**
 * How {@code predict} samples a diffusion model: {@code count} samples of an unconditional model (a conditional one
 * makes one per conditioning example), over {@code steps} timesteps, with the {@code sampler} "ddim" (η = 0) or
 * "ddpm", from the starting noise {@code seed} gives.
 */
public record Generation(int count, int steps, String sampler, long seed) {

    public static final Generation DEFAULT = new Generation(0, 50, "ddim", 0);
}
